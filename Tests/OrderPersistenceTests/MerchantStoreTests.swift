import Foundation
import Testing

@testable import OrderPersistence

@Suite struct MerchantStoreTests {
    @Test func createsAndReadsMerchants() async throws {
        try await withStore { store, _ in
            let first = try await store.createMerchant(name: "First")
            let second = try await store.createMerchant(name: "Second")
            #expect(UUID(uuidString: first.id) != nil)
            #expect(first.id == first.id.lowercased())
            #expect(first.id != second.id)
            #expect(try await store.merchant(id: first.id) == first)
            #expect(try await store.merchant(id: "00000000-0000-0000-0000-000000000000") == nil)
            #expect(Set(try await store.merchants()) == [first, second])
        }
    }

    @Test func apiKeysResolveToTheirMerchantByHash() async throws {
        try await withStore { store, _ in
            let merchant = try await store.createMerchant(name: "Shop")
            let hash = String(repeating: "ab", count: 32)
            try await store.addAPIKey(merchantID: merchant.id, keyHash: hash, prefix: "otk_live_ab")
            #expect(try await store.merchant(forAPIKeyHash: hash) == merchant)
            #expect(try await store.merchant(forAPIKeyHash: String(repeating: "cd", count: 32)) == nil)
            let keys = try await store.apiKeys(merchantID: merchant.id)
            #expect(keys.map(\.prefix) == ["otk_live_ab"])

            await #expect(throws: OrderStoreError.apiKeyAlreadyExists(prefix: "otk_live_ab")) {
                try await store.addAPIKey(merchantID: merchant.id, keyHash: hash, prefix: "otk_live_ab")
            }
            await #expect(throws: OrderStoreError.merchantNotFound(id: "missing")) {
                try await store.addAPIKey(merchantID: "missing", keyHash: String(repeating: "ef", count: 32), prefix: "x")
            }
        }
    }

    @Test func orderTypesRoundTripEveryIdentityKindAndHaveOneOwner() async throws {
        try await withStore { store, _ in
            let merchant = try await store.createMerchant(name: "Shop")
            let other = try await store.createMerchant(name: "Other")
            let identities: [IdentityConfig] = [
                .files(certificatePath: "/c.pem", keyPath: "/k.pem", keyPassword: "secret", wwdrPath: nil),
                .pkcs12(bytes: [0, 1, 2, 255], password: "pw", wwdrPEM: "-----BEGIN CERTIFICATE-----"),
                .directory(path: "/identities/shop"),
            ]
            for identity in identities {
                let record = OrderTypeRecord(orderTypeIdentifier: "order.com.shop", merchantID: merchant.id, identity: identity)
                try await store.upsertOrderType(record)
                #expect(try await store.orderType("order.com.shop") == record)
            }
            try await store.upsertOrderType(
                OrderTypeRecord(orderTypeIdentifier: "order.com.shop.b", merchantID: merchant.id, identity: .directory(path: "/b")))
            #expect(try await store.orderTypes(merchantID: merchant.id).map(\.orderTypeIdentifier) == ["order.com.shop", "order.com.shop.b"])
            #expect(try await store.orderTypes(merchantID: other.id).isEmpty)
            #expect(try await store.orderType("order.com.unknown") == nil)

            await #expect(throws: OrderStoreError.orderTypeOwnedByAnotherMerchant(orderTypeIdentifier: "order.com.shop")) {
                try await store.upsertOrderType(
                    OrderTypeRecord(orderTypeIdentifier: "order.com.shop", merchantID: other.id, identity: .directory(path: "/x")))
            }
            await #expect(throws: OrderStoreError.merchantNotFound(id: "nobody")) {
                try await store.upsertOrderType(
                    OrderTypeRecord(orderTypeIdentifier: "order.com.new", merchantID: "nobody", identity: .directory(path: "/x")))
            }
        }
    }

    @Test func errorMessagesSayWhatToDo() {
        #expect(
            OrderStoreError.schemaTooNew(databaseVersion: 7, knownVersion: 1).description
                == "database schema version 7 is newer than this ordertrack (knows up to 1); upgrade ordertrack")
        #expect(
            OrderStoreError.versionConflict(orderTypeIdentifier: "t", orderIdentifier: "o", expected: 1, actual: 2).description
                .contains("re-read it and retry"))
    }
}
