import Foundation
import SQLKit
import TestSupport
import Testing

@testable import OrderPersistence

@Suite struct QueryPlanStoreTests {
    @Test func deviceRegistrationsQueryUsesIndexesAtScale() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let orderCount = 20_000
            let document = Array(#"{"status":"open"}"#.utf8)
            let now = Date()
            try await store.insertOrders(
                (0..<orderCount).map {
                    OrderRecord(
                        orderTypeIdentifier: fixture.orderType, orderIdentifier: "order-\($0)", merchantID: fixture.merchant.id,
                        authenticationToken: "token-\($0)", document: document, status: "open", createdAt: now, updatedAt: now
                    )
                })
            // 2,000 devices with 10 orders each.
            try await store.insertRegistrations(
                (0..<orderCount).map {
                    Registration(
                        deviceLibraryIdentifier: "device-\($0 / 10)", pushToken: "push-\($0 / 10)",
                        orderTypeIdentifier: fixture.orderType, orderIdentifier: "order-\($0)", registeredAt: now
                    )
                })

            let query = SQLOrderStore.registeredOrdersQuery(
                deviceLibraryIdentifier: "device-7", orderTypeIdentifier: fixture.orderType, changedAfter: 5)
            if TestDatabase.usesPostgres {
                let plan = try await store.plan(analyze: true) { _ in query }
                #expect(plan.filter { $0.contains("Index") }.count >= 2, "both tables are read through an index; plan: \(plan)")
                #expect(!plan.contains { $0.contains("Seq Scan") }, "plan: \(plan)")
            } else {
                let plan = try await store.plan { _ in query }
                #expect(plan.count == 2, "plan: \(plan)")
                #expect(plan.allSatisfy { $0.hasPrefix("SEARCH") }, "plan: \(plan)")
                #expect(!plan.contains { $0.contains("SCAN") }, "plan: \(plan)")
            }

            let changed = try #require(
                try await store.registeredOrderIdentifiers(
                    deviceLibraryIdentifier: "device-7", orderTypeIdentifier: fixture.orderType, changedAfter: nil))
            #expect(changed.orderIdentifiers == (70..<80).map { "order-\($0)" })
            // Bulk inserts assign consecutive tags after the order type's creation.
            #expect(changed.lastChange == 80)
            let next = try await store.createOrder(fixture.order("after-bulk"))
            #expect(next.changeSequence == Int64(orderCount) + 1)

            _ = try await store.updateOrder(
                type: fixture.orderType, id: "order-75", expectedVersion: 1, document: [], status: nil, orderNumber: nil, updatedAt: Date())
            let afterUpdate = try #require(
                try await store.registeredOrderIdentifiers(
                    deviceLibraryIdentifier: "device-7", orderTypeIdentifier: fixture.orderType, changedAfter: next.changeSequence
                ))
            #expect(afterUpdate.orderIdentifiers == ["order-75"])
        }
    }

    @Test func bulkInsertsFailAsAWhole() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            try await store.createOrder(fixture.order("dup"))
            await #expect(throws: OrderStoreError.self) {
                try await store.insertOrders([fixture.order("fresh"), fixture.order("dup")])
            }
            #expect(try await store.order(type: fixture.orderType, id: "fresh") == nil)
            await #expect(throws: OrderStoreError.self) {
                try await store.insertRegistrations([
                    Registration(
                        deviceLibraryIdentifier: "d", pushToken: "t", orderTypeIdentifier: fixture.orderType, orderIdentifier: "dup",
                        registeredAt: Date()),
                    Registration(
                        deviceLibraryIdentifier: "d", pushToken: "t", orderTypeIdentifier: fixture.orderType, orderIdentifier: "missing",
                        registeredAt: Date()),
                ])
            }
            #expect(try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "dup").isEmpty)
        }
    }
}
