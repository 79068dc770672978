import Foundation
import SQLKit
import Testing

@testable import OrderPersistence

/// Audit finding M8: merchants and order types can be deleted; with orders only on purpose, and then completely.
@Suite struct DeletionStoreTests {
    /// Rows left in `table` for the order type.
    static func rows(_ store: SQLOrderStore, _ table: String, orderType: String) async throws -> Int {
        try await store.read("count rows") { try await SQLOrderStore.count($0, table, where: "order_type_identifier", orderType) }
    }

    /// A merchant with an order that has registrations, queued pushes and a fan-out still to expand, a push log entry
    /// and activity.
    static func busyMerchant(_ store: SQLOrderStore) async throws -> Fixture {
        let fixture = try await Fixture.make(store)
        _ = try await store.createOrder(fixture.order("A1"), note: ChangeNote(author: "merchant API"))
        try await OutboxStoreTests.register(store, fixture, order: "A1", count: SQLOrderStore.pushFanOutFirstChunk + 1)
        #expect(try await store.enqueuePushes(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1") == SQLOrderStore.pushFanOutFirstChunk)
        #expect(try await Self.rows(store, "push_fanouts", orderType: fixture.orderType) == 1)
        try await store.write("add a push log entry") { db in
            try await db.insert(into: "push_log").columns("order_type_identifier", "order_identifier", "token_suffix", "attempt", "outcome", "at")
                .values(fixture.orderType, "A1", "tok1", 1, "delivered", 0).run()
        }
        return fixture
    }

    @Test func m8_anOrderTypeWithOrdersIsDeletedOnlyWithForceAndThenCompletely() async throws {
        try await withStore { store, _ in
            let fixture = try await Self.busyMerchant(store)
            await #expect(throws: OrderStoreError.stillHasOrders(subject: "order type \(fixture.orderType)", count: 1)) {
                try await store.deleteOrderType(fixture.orderType, merchantID: fixture.merchant.id, force: false)
            }
            #expect(try await store.order(type: fixture.orderType, id: "A1") != nil, "a refusal deletes nothing")

            let deleted = try await store.deleteOrderType(fixture.orderType, merchantID: fixture.merchant.id, force: true)
            #expect(deleted == DeletionSummary(orderTypes: 1, orders: 1))
            #expect(try await store.orderType(fixture.orderType) == nil)
            for table in ["orders", "registrations", "push_jobs", "push_fanouts", "push_log", "order_activity", "package_cache"] {
                #expect(try await Self.rows(store, table, orderType: fixture.orderType) == 0, "\(table)")
            }
            #expect(try await store.merchant(id: fixture.merchant.id) != nil, "the merchant stays")
        }
    }

    @Test func m8_anotherMerchantsOrderTypeCannotBeDeletedAndLooksAbsent() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let other = try await store.createMerchant(name: "Other")
            await #expect(throws: OrderStoreError.orderTypeNotFound(orderTypeIdentifier: fixture.orderType)) {
                try await store.deleteOrderType(fixture.orderType, merchantID: other.id, force: true)
            }
            await #expect(throws: OrderStoreError.orderTypeNotFound(orderTypeIdentifier: "order.com.nobody")) {
                try await store.deleteOrderType("order.com.nobody", merchantID: other.id, force: true)
            }
            #expect(try await store.orderType(fixture.orderType) != nil)
            // An order type without orders needs no force.
            #expect(try await store.deleteOrderType(fixture.orderType, merchantID: fixture.merchant.id, force: false).orders == 0)
        }
    }

    @Test func m8_aMerchantIsDeletedWithEverythingItOwns() async throws {
        try await withStore { store, _ in
            let fixture = try await Self.busyMerchant(store)
            try await store.addAPIKey(merchantID: fixture.merchant.id, keyHash: "hash-of-a-key", prefix: "sk_abc")
            await #expect(throws: OrderStoreError.stillHasOrders(subject: "merchant \(fixture.merchant.id)", count: 1)) {
                try await store.deleteMerchant(id: fixture.merchant.id, force: false)
            }
            #expect(try await store.merchant(forAPIKeyHash: "hash-of-a-key") != nil, "a refusal deletes nothing")

            #expect(try await store.deleteMerchant(id: fixture.merchant.id, force: true) == DeletionSummary(orderTypes: 1, orders: 1))
            #expect(try await store.merchant(id: fixture.merchant.id) == nil)
            #expect(try await store.merchant(forAPIKeyHash: "hash-of-a-key") == nil, "its API keys stop working")
            for table in ["orders", "registrations", "push_jobs", "push_fanouts", "push_log", "order_activity", "order_types"] {
                #expect(try await Self.rows(store, table, orderType: fixture.orderType) == 0, "\(table)")
            }
            await #expect(throws: OrderStoreError.merchantNotFound(id: fixture.merchant.id)) {
                try await store.deleteMerchant(id: fixture.merchant.id, force: true)
            }
        }
    }
}
