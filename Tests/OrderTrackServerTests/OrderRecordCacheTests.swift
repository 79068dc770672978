import Foundation
import OrderPersistence
import Testing

@testable import OrderTrackServer

/// Audit M4: the order-record cache is bounded in bytes, not in count (40 orders of 3.5 MB grew RSS by 309 MB).
@Suite struct OrderRecordCacheTests {
    static func record(_ id: String, documentBytes: Int, version: Int = 1) -> OrderRecord {
        OrderRecord(
            orderTypeIdentifier: "order.com.example.shop", orderIdentifier: id, merchantID: "m1", authenticationToken: "token-\(id)",
            document: [UInt8](repeating: 0x20, count: documentBytes), status: "open", createdAt: Date(), updatedAt: Date(),
            version: version, changeSequence: 1)
    }

    @Test func m4_largeRecordsStayWithinTheCacheBytes() async throws {
        let store = try await SQLOrderStore.inMemory()
        let cache = OrderRecordCache(store: store, isExclusive: true, capacityBytes: 16 << 20)
        for index in 0..<40 {
            cache.remember(Self.record("order-\(index)", documentBytes: 3_500_000))
            #expect(cache.cachedBytes <= 16 << 20)
        }
        // The newest records are served from memory (the store is empty), the oldest were evicted.
        #expect(try await cache.order(type: "order.com.example.shop", id: "order-39")?.document.count == 3_500_000)
        #expect(try await cache.order(type: "order.com.example.shop", id: "order-0") == nil)
        // An older version never replaces a newer one.
        cache.remember(Self.record("order-39", documentBytes: 10, version: 2))
        cache.remember(Self.record("order-39", documentBytes: 20, version: 1))
        #expect(try await cache.order(type: "order.com.example.shop", id: "order-39")?.version == 2)
        try await store.shutdown()
    }

    /// A shared database (PostgreSQL with several instances): records are kept only while changes are followed, an
    /// announced change drops its order, and an interruption drops everything and keeps nothing until following resumes.
    @Test func sharedDatabaseKeepsRecordsOnlyWhileFollowingChanges() async throws {
        let store = try await SQLOrderStore.inMemory()
        let merchant = try await store.createMerchant(name: "Shop")
        let type = "order.com.example.shop"
        try await store.upsertOrderType(OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: .directory(path: "/x")))
        var record = Self.record("A", documentBytes: 10)
        record.merchantID = merchant.id
        let created = try await store.createOrder(record, note: ChangeNote(author: "test"))
        // "Another instance" writes straight to the store; only the announcement tells this cache.
        var version = created.version
        func changeBehindTheLookup() async throws {
            version = try await store.updateOrder(
                type: type, id: "A", expectedVersion: version, document: Array("{\"v\":\(version)}".utf8), status: nil, orderNumber: nil,
                renumberedFor: nil, updatedAt: Date(), note: ChangeNote(author: "other instance"), authenticationToken: nil
            ).version
        }
        let cache = OrderRecordCache(store: store, isExclusive: false)
        let read = { try await cache.order(type: type, id: "A")?.version }

        // Before following starts nothing is kept: every read sees the database.
        #expect(try await read() == 1)
        try await changeBehindTheLookup()
        #expect(try await read() == 2)

        cache.handle(.following)
        #expect(try await read() == 2)
        try await changeBehindTheLookup()
        #expect(try await read() == 2, "kept while no change was announced: the read came from memory")
        cache.handle(.order(orderTypeIdentifier: type, orderIdentifier: "B"))
        #expect(try await read() == 2, "another order's announcement does not drop this one")
        cache.handle(.order(orderTypeIdentifier: type, orderIdentifier: "A"))
        #expect(try await read() == 3)

        cache.handle(.interrupted(reason: "connection lost"))
        try await changeBehindTheLookup()
        #expect(try await read() == 4, "an interruption drops what was kept")
        try await changeBehindTheLookup()
        #expect(try await read() == 5, "and nothing is kept until following resumes")
        cache.handle(.following)
        #expect(try await read() == 5)

        // A record this process wrote is not kept with a shared database (another instance may write right after), but
        // the copy it replaces is dropped at once: the next read here sees the write, announced or not.
        try await changeBehindTheLookup()
        #expect(try await read() == 5)
        cache.remember(
            OrderRecord(
                orderTypeIdentifier: type, orderIdentifier: "A", merchantID: merchant.id, authenticationToken: "t", document: [],
                status: nil, createdAt: Date(), updatedAt: Date(), version: 99, changeSequence: 1))
        #expect(try await read() == 6)
        #expect(try await read() == 6)
        try await store.shutdown()
    }
}
