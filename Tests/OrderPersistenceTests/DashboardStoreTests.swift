import Foundation
import SQLKit
import Testing

@testable import OrderPersistence

/// The dashboard's store calls: sessions by hash, the newest-first list with its search, device counts, and the
/// migration that reads order numbers out of documents stored before it.
@Suite struct DashboardStoreTests {
    @Test func sessionsAreFoundByHashAndDeleted() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let key = APIKeyInfo(id: "key_1", merchantID: fixture.merchant.id, name: "secret key", prefix: "sk_1", createdAt: Date())
            try await store.addAPIKey(key, keyHash: "h1")
            let now = Date(timeIntervalSince1970: 1_750_000_000)
            func session(_ id: String, expires: TimeInterval) -> DashboardSessionRecord {
                DashboardSessionRecord(
                    idHash: id, merchantID: fixture.merchant.id, apiKeyID: "key_1", apiKeyHash: "h1", createdAt: now,
                    expiresAt: now.addingTimeInterval(expires))
            }
            let live = session("a1", expires: 60)
            try await store.createDashboardSession(live)
            try await store.createDashboardSession(session("b2", expires: -60))
            #expect(try await store.dashboardSession(idHash: "a1") == LiveDashboardSession(record: live, apiKeyExpiresAt: nil))
            #expect(try await store.deleteDashboardSessions(expiredBefore: now) == 1)
            #expect(try await store.dashboardSession(idHash: "b2") == nil)
            #expect(try await store.deleteDashboardSession(idHash: "a1"))
            #expect(try await !store.deleteDashboardSession(idHash: "a1"))
        }
    }

    /// M11: a session ends with its key, revoked or rotated, in the same transaction; "sign out everywhere" ends all.
    @Test func m11_sessionsEndWithTheirKey() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let now = Date()
            for (id, hash) in [("key_1", "h1"), ("key_2", "h2")] {
                try await store.addAPIKey(
                    APIKeyInfo(id: id, merchantID: fixture.merchant.id, name: id, prefix: "sk_", createdAt: now), keyHash: hash)
            }
            func open(_ id: String, key: String, hash: String) async throws {
                try await store.createDashboardSession(
                    DashboardSessionRecord(
                        idHash: id, merchantID: fixture.merchant.id, apiKeyID: key, apiKeyHash: hash, createdAt: now,
                        expiresAt: now.addingTimeInterval(3600)))
            }
            try await open("s1", key: "key_1", hash: "h1")
            try await open("s2", key: "key_2", hash: "h2")
            try await open("s3", key: "key_2", hash: "h2")
            _ = try await store.replaceAPIKeySecret(merchantID: fixture.merchant.id, id: "key_1", keyHash: "h1-new", prefix: "sk_")
            #expect(try await store.dashboardSession(idHash: "s1") == nil, "rotated")
            #expect(try await store.dashboardSession(idHash: "s2") != nil)
            _ = try await store.revokeAPIKey(merchantID: fixture.merchant.id, id: "key_2", at: now)
            #expect(try await store.dashboardSession(idHash: "s2") == nil, "revoked")
            #expect(try await !store.deleteDashboardSession(idHash: "s3"), "deleted with the revocation")
            try await open("s4", key: "key_1", hash: "h1-new")
            #expect(try await store.deleteDashboardSessions(merchantID: fixture.merchant.id) == 1)
        }
    }

    @Test func recentOrdersComeNewestFirstAndFindNumbersAndIdentifiers() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            for index in 1...5 {
                var order = fixture.order("O\(index)", status: index == 2 ? "completed" : "open")
                order.orderNumber = "N-\(index)"
                try await store.createOrder(order)
            }
            let first = try await store.recentOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: nil, status: nil, search: nil, before: nil, limit: 3)
            #expect(first.orders.map(\.orderIdentifier) == ["O5", "O4", "O3"])
            let rest = try await store.recentOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: nil, status: nil, search: nil, before: first.nextCursor, limit: 3)
            #expect(rest.orders.map(\.orderIdentifier) == ["O2", "O1"])
            #expect(rest.nextCursor == nil)
            let completed = try await store.recentOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: nil, status: "completed", search: nil, before: nil, limit: 10)
            #expect(completed.orders.map(\.orderIdentifier) == ["O2"])
            for search in ["N-4", "O4"] {
                let found = try await store.recentOrders(
                    merchantID: fixture.merchant.id, orderTypeIdentifier: nil, status: nil, search: search, before: nil, limit: 10)
                #expect(found.orders.map(\.orderIdentifier) == ["O4"], "search \(search)")
            }
            let other = try await store.createMerchant(name: "Other")
            #expect(
                try await store.recentOrders(merchantID: other.id, orderTypeIdentifier: nil, status: nil, search: "N-4", before: nil, limit: 10)
                    .orders.isEmpty)

            _ = try await store.register(
                deviceLibraryIdentifier: "d1", pushToken: "t1", orderTypeIdentifier: fixture.orderType, orderIdentifier: "O1")
            _ = try await store.register(
                deviceLibraryIdentifier: "d2", pushToken: "t2", orderTypeIdentifier: fixture.orderType, orderIdentifier: "O1")
            _ = try await store.register(
                deviceLibraryIdentifier: "d1", pushToken: "t1", orderTypeIdentifier: fixture.orderType, orderIdentifier: "O3")
            let keys = ["O1", "O2", "O3"].map { OrderKey(orderTypeIdentifier: fixture.orderType, orderIdentifier: $0) }
            #expect(try await store.registrationCounts(of: keys) == [keys[0]: 2, keys[2]: 1])
        }
    }

    @Test func theMigrationReadsOrderNumbersOfExistingOrders() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            try await store.createOrder(fixture.order("A", document: #"{"orderNumber":"1001","status":"open"}"#))
            try await store.createOrder(fixture.order("B", document: "not json"))
            try await store.write("forget order numbers") { db in
                try await db.update("orders").set("order_number", to: SQLLiteral.null).run()
                try await DashboardSchema.backfillOrderNumbers(db)
            }
            #expect(try await store.order(type: fixture.orderType, id: "A")?.orderNumber == "1001")
            #expect(try await store.order(type: fixture.orderType, id: "B")?.orderNumber == nil)
        }
    }
}
