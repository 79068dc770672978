import Foundation
import OrderPersistence
import Testing

@testable import OrderTrackServer

/// Audit M4: the order-record cache is bounded in bytes, not in count (40 orders of 3.5 MB grew RSS by 309 MB).
@Suite struct OrderLookupTests {
    static func record(_ id: String, documentBytes: Int, version: Int = 1) -> OrderRecord {
        OrderRecord(
            orderTypeIdentifier: "order.com.example.shop", orderIdentifier: id, merchantID: "m1", authenticationToken: "token-\(id)",
            document: [UInt8](repeating: 0x20, count: documentBytes), status: "open", createdAt: Date(), updatedAt: Date(),
            version: version, changeSequence: 1)
    }

    @Test func m4_largeRecordsStayWithinTheCacheBytes() async throws {
        let store = try await SQLOrderStore.inMemory()
        let lookup = OrderLookup(store: store, cachesRecords: true, capacityBytes: 16 << 20)
        for index in 0..<40 {
            lookup.remember(Self.record("order-\(index)", documentBytes: 3_500_000))
            #expect(lookup.cachedBytes <= 16 << 20)
        }
        // The newest records are served from memory (the store is empty), the oldest were evicted.
        #expect(try await lookup.order(type: "order.com.example.shop", id: "order-39")?.document.count == 3_500_000)
        #expect(try await lookup.order(type: "order.com.example.shop", id: "order-0") == nil)
        // An older version never replaces a newer one.
        lookup.remember(Self.record("order-39", documentBytes: 10, version: 2))
        lookup.remember(Self.record("order-39", documentBytes: 20, version: 1))
        #expect(try await lookup.order(type: "order.com.example.shop", id: "order-39")?.version == 2)
        try await store.shutdown()
    }
}
