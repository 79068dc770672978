import Foundation
import OrderPersistence
import Prometheus
import ServerTestSupport
import TestSupport
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

    /// A shared database (PostgreSQL with several instances): another instance's change is served at once, whether or
    /// not its announcement arrived, because a kept record is used only once the database confirmed its version. Here
    /// "another instance" writes straight to the store and nothing is announced.
    @Test func aKeptRecordIsServedOnlyAtTheDatabasesVersion() async throws {
        let url = TestDatabase.usesPostgres ? try TestDatabase.freshPostgresURL() : nil
        func open() async throws -> SQLOrderStore {
            guard let url else { return try await SQLOrderStore.inMemory() }
            return try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        }
        let store = try await open()
        let other = url == nil ? store : try await open()
        let merchant = try await other.createMerchant(name: "Shop")
        let type = "order.com.example.shop"
        try await other.upsertOrderType(OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: .directory(path: "/x")))
        var record = Self.record("A", documentBytes: 10)
        record.merchantID = merchant.id
        var version = try await other.createOrder(record, note: ChangeNote(author: "test")).version
        func changeElsewhere() async throws {
            version = try await other.updateOrder(
                type: type, id: "A", expectedVersion: version, document: Array("{\"v\":\(version)}".utf8), status: nil, orderNumber: nil,
                renumberedFor: nil, updatedAt: Date(), note: ChangeNote(author: "other instance"), authenticationToken: nil
            ).version
        }
        let registry = PrometheusCollectorRegistry()
        let cache = OrderRecordCache(store: store, isExclusive: false, metrics: CacheMetrics(registry: registry))
        func hits() -> Double {
            var text: [UInt8] = []
            registry.emit(into: &text)
            return ServerMetrics.value(ChangeFeed.orderHits, in: String(decoding: text, as: UTF8.self))
        }
        let read = { try await cache.order(type: type, id: "A")?.version }

        #expect(try await read() == 1)
        #expect(try await read() == 1)
        #expect(hits() == 1, "the second read was the kept record, its version confirmed")
        for expected in 2...4 {
            try await changeElsewhere()
            #expect(try await read() == expected, "no announcement came, and the change is served")
        }
        // This process's own write is kept; a write elsewhere right after it still wins.
        try await changeElsewhere()
        let own = try #require(try await store.order(type: type, id: "A"))
        cache.remember(own)
        #expect(try await read() == 5)
        try await changeElsewhere()
        #expect(try await read() == 6)
        // An order deleted elsewhere is gone here too.
        _ = try await other.deleteOrderType(type, merchantID: merchant.id, force: true)
        #expect(try await read() == nil)
        if url != nil { try await other.shutdown() }
        try await store.shutdown()
    }

    /// Version reads that overlap share queries, and each caller still gets its own order's version: 500 reads of 50
    /// orders at once (with versions 1 to 3) and one of an order that does not exist. A caller left without an answer
    /// would hang, so the time limit ends the test.
    @Test(.timeLimit(.minutes(1))) func overlappingVersionReadsEachGetTheirOwnOrder() async throws {
        let store =
            try await TestDatabase.usesPostgres
            ? SQLOrderStore.postgres(PostgresStoreConfiguration(url: TestDatabase.freshPostgresURL()), masterKey: testMasterKey)
            : SQLOrderStore.inMemory()
        let merchant = try await store.createMerchant(name: "Shop")
        let type = "order.com.example.shop"
        try await store.upsertOrderType(OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: .directory(path: "/x")))
        var expected: [String: Int] = [:]
        for index in 0..<50 {
            var record = Self.record("order-\(index)", documentBytes: 10)
            record.merchantID = merchant.id
            var version = try await store.createOrder(record).version
            for _ in 0..<(index % 3) {
                version = try await store.updateOrder(
                    type: type, id: record.orderIdentifier, expectedVersion: version, document: Array("{}".utf8), status: nil, orderNumber: nil,
                    renumberedFor: nil, updatedAt: Date(), note: ChangeNote(), authenticationToken: nil
                ).version
            }
            expected[record.orderIdentifier] = version
        }
        let reads = VersionReads(store: store)
        let answers = try await withThrowingTaskGroup(of: (String, Int?).self) { group in
            for round in 0..<10 {
                for index in 0..<50 {
                    let id = "order-\((index + round) % 50)"
                    group.addTask { (id, try await reads.version(of: OrderKey(orderTypeIdentifier: type, orderIdentifier: id))) }
                }
            }
            group.addTask { ("missing", try await reads.version(of: OrderKey(orderTypeIdentifier: type, orderIdentifier: "missing"))) }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 501)
        for (id, version) in answers {
            #expect(version == expected[id], "\(id)")
        }
        try await store.shutdown()
    }

    /// The 2026-11-29 soak on SQLite: a write's push reached a device before the writer kept the new record, and the
    /// device was answered the old one under the new change tag, for good. While a write runs, device calls read the
    /// database and nothing they read is kept; once it returns, its record is.
    @Test func whileAnOrderIsWrittenItIsReadFromTheDatabaseAndNothingOlderIsKept() async throws {
        let store = try await SQLOrderStore.inMemory()
        let merchant = try await store.createMerchant(name: "Shop")
        let type = "order.com.example.shop"
        try await store.upsertOrderType(OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: .directory(path: "/x")))
        var record = Self.record("A", documentBytes: 10)
        record.merchantID = merchant.id
        let created = try await store.createOrder(record)
        let cache = OrderRecordCache(store: store, isExclusive: true)
        cache.remember(created)
        let read = { try await cache.order(type: type, id: "A")?.version }

        let updated = try await cache.writing(type: type, id: "A") {
            let stored = try await store.updateOrder(
                type: type, id: "A", expectedVersion: created.version, document: Array("{}".utf8), status: nil, orderNumber: nil,
                renumberedFor: nil, updatedAt: Date(), note: ChangeNote(), authenticationToken: nil)
            // Committed, not yet kept: the moment the push may already be out.
            #expect(try await read() == stored.version, "answered from the database, not the kept version \(created.version)")
            cache.remember(created)
            #expect(try await read() == stored.version, "a record read meanwhile is not kept")
            return stored
        }
        // Kept now: served from memory even once the database moves on without this process (it never does with SQLite).
        _ = try await store.updateOrder(
            type: type, id: "A", expectedVersion: updated.version, document: Array("{}".utf8), status: nil, orderNumber: nil,
            renumberedFor: nil, updatedAt: Date(), note: ChangeNote(), authenticationToken: nil)
        #expect(try await read() == updated.version)
        // A failed write leaves nothing behind: the next read goes to the database and is kept.
        await #expect(throws: OrderStoreError.self) {
            try await cache.writing(type: type, id: "A") { throw OrderStoreError.storeClosed }
        }
        #expect(try await read() == updated.version + 1)
        try await store.shutdown()
    }
}
