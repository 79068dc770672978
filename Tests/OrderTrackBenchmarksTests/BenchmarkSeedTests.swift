import Foundation
import OrderPersistence
import OrderTrackBenchmarks
import TestSupport
import Testing

@Suite struct BenchmarkSeedTests {
    @Test func seedingGeneratesConsistentOrdersAndRegistrations() async throws {
        try await withStore { store, fixture in
            let existing = try await store.createOrder(fixture.order("existing"))
            let prefix = "Zm9vYmFyYmF6cXV4cXV1eA-"
            let seed = BenchmarkSeed(
                merchantID: fixture.merchant.id, orderTypeIdentifier: fixture.orderType,
                orderCount: 1000, registrationCount: 1500, ordersPerDevice: 10,
                document: Array(#"{"status":"open"}"#.utf8), authenticationTokenPrefix: prefix, batchSize: 300
            )
            try await seed.insert(into: store)

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
                    merchantID: fixture.merchant.id, orderTypeIdentifier: nil, orderNumber: nil, status: nil, updatedSince: nil, after: cursor,
                    limit: 1000)
                count += page.orders.count
                cursor = page.nextCursor
            } while cursor != nil
            #expect(count == 1001)

            await #expect(throws: OrderStoreError.self) { try await seed.insert(into: store) }
        }
    }

    @Test func invalidSeedsAreRefusedBeforeWriting() async throws {
        try await withStore { store, fixture in
            func seed(orders: Int = 10, registrations: Int = 10, perDevice: Int = 2, prefix: String = "0123456789abcdef0123") -> BenchmarkSeed {
                BenchmarkSeed(
                    merchantID: fixture.merchant.id, orderTypeIdentifier: fixture.orderType, orderCount: orders,
                    registrationCount: registrations, ordersPerDevice: perDevice, document: [], authenticationTokenPrefix: prefix
                )
            }
            for invalid in [
                seed(orders: -1), seed(registrations: -1), seed(perDevice: 0), seed(perDevice: 11), seed(orders: 0), seed(prefix: "short"),
            ] {
                await #expect(throws: OrderStoreError.self) { try await invalid.insert(into: store) }
            }
            var foreign = seed()
            foreign.orderTypeIdentifier = "order.com.unknown"
            await #expect(throws: OrderStoreError.orderTypeNotFound(orderTypeIdentifier: "order.com.unknown")) {
                try await foreign.insert(into: store)
            }
            let listed = try await store.listOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: nil, orderNumber: nil, status: nil, updatedSince: nil, after: nil, limit: 10)
            #expect(listed.orders.isEmpty)
        }
    }
}

@Suite struct TrackedOrderSeedTests {
    static let template = Array(
        #"{"status":"open","orderNumber":"A-1","fulfillments":[{"fulfillmentType":"shipping","fulfillmentIdentifier":"parcel","status":"shipped","carrier":"dhl"},{"fulfillmentType":"pickup","fulfillmentIdentifier":"store","status":"open"}]}"#
            .utf8)

    @Test func eachOrderHasItsOwnTrackedParcelAndDevices() async throws {
        try await withStore { store, fixture in
            let seed = TrackedOrderSeed(
                merchantID: fixture.merchant.id, orderTypeIdentifier: fixture.orderType, template: Self.template, orderCount: 30,
                devicesPerOrder: 2, authenticationTokenPrefix: "Zm9vYmFyYmF6cXV4cXV1eA-", concurrency: 4)
            try await seed.insert(into: store)

            for index in [0, 17, 29] {
                let tracked = try await store.trackedFulfillments(merchantID: fixture.merchant.id, trackingNumber: seed.trackingNumber(index))
                #expect(tracked.map(\.order.orderIdentifier) == [seed.orderIdentifier(index)])
                #expect(tracked.map(\.entry.fulfillmentIdentifier) == ["parcel"])
                #expect(tracked.map(\.entry.carrier) == ["dhl"])
                let order = try #require(try await store.order(type: fixture.orderType, id: seed.orderIdentifier(index)))
                let document = String(decoding: order.document, as: UTF8.self)
                #expect(document.contains(#""trackingNumber":"\#(seed.trackingNumber(index))""#))
                #expect(document.contains(#""orderIdentifier":"\#(seed.orderIdentifier(index))""#))
                #expect(!document.contains("orderNumber"))
                #expect(order.authenticationToken == "Zm9vYmFyYmF6cXV4cXV1eA-\(index)")
                #expect(order.status == "open")

                let registrations = try await store.registrations(
                    orderTypeIdentifier: fixture.orderType, orderIdentifier: seed.orderIdentifier(index))
                #expect(Set(registrations.map(\.pushToken)) == [seed.pushToken(order: index, device: 0), seed.pushToken(order: index, device: 1)])
                for registration in registrations {
                    let device = try #require(seed.device(ofPushToken: registration.pushToken))
                    #expect(device.order == index)
                    #expect(registration.pushToken == seed.pushToken(order: device.order, device: device.device))
                }
            }
            #expect(seed.pushToken(order: 0, device: 0).count == 64)
            #expect(seed.device(ofPushToken: String(format: "%064x", 61)) == nil)
            #expect(seed.device(ofPushToken: "fa170410" + String(repeating: "0", count: 56)) == nil)
            await #expect(throws: OrderStoreError.self) { try await seed.insert(into: store) }
        }
    }

    @Test func invalidSeedsAreRefusedBeforeWriting() async throws {
        try await withStore { store, fixture in
            func seed(template: [UInt8] = TrackedOrderSeedTests.template, orders: Int = 3, devices: Int = 1) -> TrackedOrderSeed {
                TrackedOrderSeed(
                    merchantID: fixture.merchant.id, orderTypeIdentifier: fixture.orderType, template: template, orderCount: orders,
                    devicesPerOrder: devices, authenticationTokenPrefix: "0123456789abcdef0123")
            }
            for invalid in [
                seed(template: Array(#"{"status":"open"}"#.utf8)), seed(template: Array("not json".utf8)), seed(orders: 0), seed(devices: -1),
            ] {
                await #expect(throws: OrderStoreError.self) { try await invalid.insert(into: store) }
            }
            let listed = try await store.listOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: nil, orderNumber: nil, status: nil, updatedSince: nil, after: nil, limit: 10)
            #expect(listed.orders.isEmpty)
        }
    }
}

/// The master key of the stores these tests open.
private let testMasterKey = MasterKey.generate()

/// Opens a store on the test database (a new SQLite file, or a new schema with `ORDERTRACK_TEST_STORE=postgres`),
/// runs `body` with a merchant that owns one order type, then shuts the store down.
private func withStore(_ body: (SQLOrderStore, Fixture) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("benchmark-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store: SQLOrderStore
    if let url = try TestDatabase.storeURL() {
        store = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
    } else {
        store = try await SQLOrderStore.sqlite(path: directory.appendingPathComponent("ordertrack.sqlite").path, masterKey: testMasterKey)
    }
    do {
        try await body(store, try await Fixture.make(store))
        try await store.shutdown()
    } catch {
        try? await store.shutdown()
        throw error
    }
}

private struct Fixture {
    let merchant: MerchantRecord
    let orderType = "order.com.example.shop"

    static func make(_ store: SQLOrderStore) async throws -> Fixture {
        let fixture = Fixture(merchant: try await store.createMerchant(name: "Example Shop"))
        try await store.upsertOrderType(
            OrderTypeRecord(
                orderTypeIdentifier: fixture.orderType, merchantID: fixture.merchant.id, identity: .directory(path: "/etc/ordertrack/identity")
            ))
        return fixture
    }

    func order(_ id: String) -> OrderRecord {
        OrderRecord(
            orderTypeIdentifier: orderType, orderIdentifier: id, merchantID: merchant.id, authenticationToken: "token-\(id)-0123456789abcdef",
            document: Array(#"{"status":"open"}"#.utf8), status: "open", createdAt: Date(), updatedAt: Date()
        )
    }
}
