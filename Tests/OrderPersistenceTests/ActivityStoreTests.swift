import Foundation
import Testing

@testable import OrderPersistence

/// Each order's activity: changes and registrations recorded in their own transactions, fetches appended in batches,
/// read newest first, pruned by age.
@Suite struct ActivityStoreTests {
    @Test func changesAndRegistrationsAreRecordedWithThemNewestFirst() async throws {
        let clock = Date(timeIntervalSince1970: 1_750_000_000)
        try await withStore(now: { clock }) { store, _ in
            let fixture = try await Fixture.make(store)
            let order = try await store.createOrder(fixture.order("A1"), note: ChangeNote(author: "merchant API"))
            let outcome = try await store.register(
                deviceLibraryIdentifier: "0123456789abcdef", pushToken: "aa11", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1")
            #expect(outcome == .created)
            _ = try await store.register(
                deviceLibraryIdentifier: "0123456789abcdef", pushToken: "aa11", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1")
            let updated = try await store.updateOrder(
                type: fixture.orderType, id: "A1", expectedVersion: order.version, document: Array("{}".utf8), status: "completed",
                orderNumber: nil, renumberedFor: nil, updatedAt: clock,
                note: ChangeNote(author: "dashboard", changedFields: ["fulfillments", "status"]),
                authenticationToken: nil)
            #expect(
                try await store.unregister(deviceLibraryIdentifier: "0123456789abcdef", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1")
            )
            #expect(
                try await !store.unregister(
                    deviceLibraryIdentifier: "0123456789abcdef", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1"))
            try await store.appendActivity([
                OrderActivity(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1", kind: .fetched, version: 2, status: 200, at: clock),
                OrderActivity(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1", kind: .fetched, version: 2, status: 304, at: clock),
            ])

            let activity = try await store.orderActivity(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1", limit: 10)
            #expect(
                activity.map(\.kind) == [.fetched, .fetched, .unregistered, .updated, .registered, .created], "a repeated registration is no news")
            #expect(activity.map(\.status) == [304, 200, nil, nil, nil, nil])
            #expect(activity[3].version == updated.version && activity[3].author == "dashboard" && activity[3].detail == "fulfillments, status")
            #expect(activity[5].version == 1 && activity[5].author == "merchant API" && activity[5].detail == nil)
            #expect(activity[4].detail == "01234567…", "a device is named by the start of its library identifier, never its token")
            #expect(activity.allSatisfy { $0.at == clock })
            #expect(try await store.latestActivityID(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1") == activity[0].id)
            #expect(try await store.latestActivityID(orderTypeIdentifier: fixture.orderType, orderIdentifier: "none") == 0)
            #expect(
                try await store.orderActivity(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1", limit: 2).map(\.id)
                    == activity.prefix(2).map(\.id))
        }
    }

    @Test func aRefusedChangeRecordsNothing() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let order = try await store.createOrder(fixture.order("B1"))
            await #expect(throws: OrderStoreError.self) {
                try await store.updateOrder(
                    type: fixture.orderType, id: "B1", expectedVersion: order.version + 1, document: [], status: nil, orderNumber: nil,
                    renumberedFor: nil, updatedAt: Date(), note: ChangeNote(author: "dashboard"), authenticationToken: nil)
            }
            await #expect(throws: OrderStoreError.self) {
                try await store.createOrder(fixture.order("B1"), note: ChangeNote(author: "merchant API"))
            }
            let activity = try await store.orderActivity(orderTypeIdentifier: fixture.orderType, orderIdentifier: "B1", limit: 10)
            #expect(activity.map(\.kind) == [.created], "only the creation that happened")
        }
    }

    @Test func oldActivityIsPrunedAndLargeBatchesAreWritten() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            try await store.createOrder(fixture.order("C1"))
            let old = Date(timeIntervalSince1970: 1_000_000_000)
            let fetches = (0..<1_200).map { index in
                OrderActivity(
                    orderTypeIdentifier: fixture.orderType, orderIdentifier: "C1", kind: .fetched, version: 1, status: 200,
                    at: old.addingTimeInterval(Double(index)))
            }
            try await store.appendActivity(fetches)
            try await store.appendActivity([])
            // An entry standing for several fetches keeps their number; every other entry reads as one.
            try await store.appendActivity([
                OrderActivity(
                    orderTypeIdentifier: fixture.orderType, orderIdentifier: "C1", kind: .fetched, version: 1, status: 304,
                    at: old.addingTimeInterval(1_200), occurrences: 40)
            ])
            let all = try await store.orderActivity(orderTypeIdentifier: fixture.orderType, orderIdentifier: "C1", limit: 2_000)
            #expect(all.count == 1_202)
            #expect(all.first?.occurrences == 40 && all.dropFirst().allSatisfy { $0.occurrences == 1 })
            #expect(try await store.deleteActivity(before: old.addingTimeInterval(600)) == 600)
            #expect(try await store.deleteActivity(before: Date().addingTimeInterval(-60)) == 601)
            let left = try await store.orderActivity(orderTypeIdentifier: fixture.orderType, orderIdentifier: "C1", limit: 10)
            #expect(left.map(\.kind) == [.created], "the young entry stays")
        }
    }
}
