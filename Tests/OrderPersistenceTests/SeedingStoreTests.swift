import Foundation
import Testing

@testable import OrderPersistence

@Suite struct SeedingStoreTests {
    @Test func seedingGeneratesConsistentOrdersAndRegistrations() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let existing = try await store.createOrder(fixture.order("existing"))
            let prefix = "Zm9vYmFyYmF6cXV4cXV1eA-"
            let seed = BenchmarkSeed(
                merchantID: fixture.merchant.id, orderTypeIdentifier: fixture.orderType,
                orderCount: 1000, registrationCount: 1500, ordersPerDevice: 10,
                document: Array(#"{"status":"open"}"#.utf8), authenticationTokenPrefix: prefix, batchSize: 300
            )
            try await store.seedForBenchmark(seed)

            let first = try #require(try await store.order(type: fixture.orderType, id: "bench-order-0"))
            let last = try #require(try await store.order(type: fixture.orderType, id: "bench-order-999"))
            #expect(try await store.order(type: fixture.orderType, id: "bench-order-1000") == nil)
            #expect(last.authenticationToken == prefix + "999")
            #expect(last.document == seed.document)
            #expect(last.version == 1)
            #expect(last.status == "open")
            #expect(first.changeSequence == existing.changeSequence + 1)
            #expect(last.changeSequence == existing.changeSequence + 1000)

            let device5 = try #require(
                try await store.registeredOrderIdentifiers(
                    deviceLibraryIdentifier: "bench-device-5", orderTypeIdentifier: fixture.orderType, changedAfter: nil
                ))
            #expect(device5.orderIdentifiers == (50..<60).map { "bench-order-\($0)" })
            // Registrations beyond orderCount wrap around to the first orders.
            let wrapped = try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "bench-order-7")
            #expect(wrapped.map(\.deviceLibraryIdentifier) == ["bench-device-0", "bench-device-100"])
            #expect(wrapped.map(\.pushToken) == ["bench-push-0", "bench-push-100"])

            // Paging sees every seeded order once.
            var count = 0
            var cursor: String?
            repeat {
                let page = try await store.listOrders(
                    merchantID: fixture.merchant.id, orderTypeIdentifier: nil, status: nil, updatedSince: nil, after: cursor, limit: 1000)
                count += page.orders.count
                cursor = page.nextCursor
            } while cursor != nil
            #expect(count == 1001)

            await #expect(throws: OrderStoreError.self) { try await store.seedForBenchmark(seed) }
        }
    }

    @Test func invalidSeedsAreRefusedBeforeWriting() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            func seed(orders: Int = 10, registrations: Int = 10, perDevice: Int = 2, prefix: String = "0123456789abcdef0123") -> BenchmarkSeed {
                BenchmarkSeed(
                    merchantID: fixture.merchant.id, orderTypeIdentifier: fixture.orderType, orderCount: orders,
                    registrationCount: registrations, ordersPerDevice: perDevice, document: [], authenticationTokenPrefix: prefix
                )
            }
            for invalid in [
                seed(orders: -1), seed(registrations: -1), seed(perDevice: 0), seed(perDevice: 11), seed(orders: 0), seed(prefix: "short"),
            ] {
                await #expect(throws: OrderStoreError.self) { try await store.seedForBenchmark(invalid) }
            }
            var foreign = seed()
            foreign.orderTypeIdentifier = "order.com.unknown"
            await #expect(throws: OrderStoreError.orderTypeNotFound(orderTypeIdentifier: "order.com.unknown")) {
                try await store.seedForBenchmark(foreign)
            }
            #expect(
                try await store.listOrders(
                    merchantID: fixture.merchant.id, orderTypeIdentifier: nil, status: nil, updatedSince: nil, after: nil, limit: 10
                ).orders.isEmpty)
        }
    }
}
