import Foundation
import Testing

@testable import OrderPersistence

/// Schema 8 on both databases: restricted keys round-trip, revocation and rotation are single writes, uses are recorded
/// at most once per interval, and the audit trail of changes is read back newest first and pruned with the activity.
@Suite struct APIKeyStoreTests {
    @Test func restrictedKeysRoundTripRevokeRotateAndRecordUse() async throws {
        let clock = Date(timeIntervalSince1970: 1_750_000_000)
        try await withStore(now: { clock }) { store, _ in
            let fixture = try await Fixture.make(store)
            let key = APIKeyInfo(
                id: APIKeyInfo.newID(), merchantID: fixture.merchant.id, name: "carrier", prefix: "rk_abcdefg",
                scopes: ["fulfillments:write", "orders:read"], orderTypeIdentifiers: [fixture.orderType], createdAt: clock,
                expiresAt: clock.addingTimeInterval(86_400))
            let hash = String(repeating: "ab", count: 32)
            try await store.addAPIKey(key, keyHash: hash)
            let found = try #require(try await store.apiKey(forHash: hash))
            #expect(found.key == key && found.merchant == fixture.merchant)
            // A restricted key never signs in to the dashboard.
            #expect(try await store.merchant(forAPIKeyHash: hash) == nil)

            try await store.recordAPIKeyUses([key.id: clock], unlessUsedWithin: 60)
            try await store.recordAPIKeyUses([key.id: clock.addingTimeInterval(30)], unlessUsedWithin: 60)
            #expect(try await store.apiKeys(merchantID: fixture.merchant.id).first { $0.id == key.id }?.lastUsedAt == clock)
            try await store.recordAPIKeyUses([key.id: clock.addingTimeInterval(61), "key_unknown": clock], unlessUsedWithin: 60)
            #expect(try await store.apiKeys(merchantID: fixture.merchant.id).first { $0.id == key.id }?.lastUsedAt == clock.addingTimeInterval(61))

            let newHash = String(repeating: "cd", count: 32)
            let rotated = try await store.replaceAPIKeySecret(merchantID: fixture.merchant.id, id: key.id, keyHash: newHash, prefix: "rk_zzzzzzz")
            #expect(rotated?.prefix == "rk_zzzzzzz" && rotated?.scopes == key.scopes)
            #expect(try await store.apiKey(forHash: hash) == nil)
            #expect(try await store.apiKey(forHash: newHash)?.key.id == key.id)
            #expect(try await store.replaceAPIKeySecret(merchantID: "another", id: key.id, keyHash: hash, prefix: "x") == nil)

            let revoked = try await store.revokeAPIKey(merchantID: fixture.merchant.id, id: key.id, at: clock)
            #expect(revoked?.revokedAt == clock)
            #expect(try await store.revokeAPIKey(merchantID: fixture.merchant.id, id: key.id, at: clock.addingTimeInterval(5))?.revokedAt == clock)
            #expect(try await store.replaceAPIKeySecret(merchantID: fixture.merchant.id, id: key.id, keyHash: hash, prefix: "x") == nil)
            #expect(try await store.revokeAPIKey(merchantID: fixture.merchant.id, id: "key_missing", at: clock) == nil)

            // A secret key (every scope) still signs in to the dashboard until revoked.
            let secretHash = String(repeating: "ef", count: 32)
            try await store.addAPIKey(merchantID: fixture.merchant.id, keyHash: secretHash, prefix: "sk_1234567")
            #expect(try await store.merchant(forAPIKeyHash: secretHash) == fixture.merchant)
        }
    }

    @Test func theHistoryHoldsChangesWithWhoWhereAndDiffAndRetentionPrunesIt() async throws {
        let clock = Date(timeIntervalSince1970: 1_750_000_000)
        try await withStore(now: { clock }) { store, _ in
            let fixture = try await Fixture.make(store)
            let order = try await store.createOrder(
                fixture.order("H1"),
                note: ChangeNote(author: "merchant API", keyID: "key_1", keyName: "secret key", address: "192.0.2.1", diff: #"{"":{"to":{}}}"#))
            _ = try await store.register(
                deviceLibraryIdentifier: "device-1", pushToken: "aa11", orderTypeIdentifier: fixture.orderType, orderIdentifier: "H1")
            _ = try await store.updateOrder(
                type: fixture.orderType, id: "H1", expectedVersion: order.version, document: Array("{}".utf8), status: "completed",
                orderNumber: nil, renumberedFor: nil, updatedAt: clock,
                note: ChangeNote(
                    author: "merchant API", changedFields: ["status"], keyID: "key_2", keyName: "carrier", address: "2001:db8::1",
                    diff: #"{"/status":{"from":"open","to":"completed"}}"#), authenticationToken: nil)
            let history = try await store.orderHistory(orderTypeIdentifier: fixture.orderType, orderIdentifier: "H1", limit: 10)
            #expect(history.map(\.kind) == [.updated, .created], "registrations are activity, not history")
            #expect(history.map(\.keyID) == ["key_2", "key_1"] && history.map(\.keyName) == ["carrier", "secret key"])
            #expect(history.map(\.address) == ["2001:db8::1", "192.0.2.1"])
            #expect(history.first?.diff == #"{"/status":{"from":"open","to":"completed"}}"#)
            #expect(try await store.orderHistory(orderTypeIdentifier: fixture.orderType, orderIdentifier: "H1", limit: 1).count == 1)

            #expect(try await store.deleteActivity(before: clock.addingTimeInterval(1)) == 3)
            #expect(try await store.orderHistory(orderTypeIdentifier: fixture.orderType, orderIdentifier: "H1", limit: 10).isEmpty)
        }
    }
}
