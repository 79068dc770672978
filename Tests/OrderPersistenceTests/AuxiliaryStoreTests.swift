import Foundation
import SQLKit
import Testing

@testable import OrderPersistence

@Suite struct AuxiliaryStoreTests {
    /// Expired idempotency keys go in transactions of at most ``SQLOrderStore/pruneBatch`` rows, oldest first: a reader
    /// polling during the deletion sees the oldest keys gone while younger expired ones remain (one transaction would
    /// show all or none), and keys inside the retention stay.
    @Test func l10_idempotencyKeyRetentionDeletesInBatchesOldestFirst() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let merchantID = fixture.merchant.id
            let expired = SQLOrderStore.pruneBatch * 3 + 7
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            try await store.write("seed idempotency keys") { db in
                for chunk in Array(0...expired).chunked(into: 1000) {
                    let insert = db.insert(into: "idempotency_keys")
                        .columns("merchant_id", "idempotency_key", "request_hash", "status", "body", "created_at")
                    for index in chunk {
                        // Inserted newest first, so the deletion cannot rely on insertion order.
                        let age = expired - index
                        insert.values(merchantID, "key\(age)", "hash", 201, Data([1]), start.addingTimeInterval(Double(age)).millisecondsSince1970)
                    }
                    try await insert.run()
                }
            }
            let cutoff = start.addingTimeInterval(Double(expired))
            let observer = Task {
                while true {
                    let oldestGone = try await store.idempotentResponse(merchantID: merchantID, key: "key0") == nil
                    let youngestExpiredLeft = try await store.idempotentResponse(merchantID: merchantID, key: "key\(expired - 1)") != nil
                    if oldestGone && youngestExpiredLeft { return true }
                    if !youngestExpiredLeft { return false }
                }
            }
            #expect(try await store.deleteIdempotentResponses(createdBefore: cutoff) == expired)
            #expect(try await observer.value, "the deletion committed in several transactions, oldest first")
            #expect(try await store.idempotentResponse(merchantID: merchantID, key: "key\(expired)") != nil, "a key at the cutoff stays")
            #expect(try await store.deleteIdempotentResponses(createdBefore: cutoff) == 0)
        }
    }

    @Test func theFirstRequestUnderAKeyCreatesItsOrderAndItsResponseInOneTransaction() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let merchantID = fixture.merchant.id
            let created = milliseconds(Date(timeIntervalSince1970: 1_750_000_000.5))
            let first = IdempotencyRecord(requestHash: "h1", status: 201, body: Array(#"{"id":"A"}"#.utf8), createdAt: created)
            let second = IdempotencyRecord(requestHash: "h2", status: 201, body: Array(#"{"id":"B"}"#.utf8), createdAt: Date())

            #expect(try await store.idempotentResponse(merchantID: merchantID, key: "k1") == nil)
            guard
                case .created(let order) = try await store.createOrder(
                    fixture.order("A"), idempotency: IdempotencyClaim(merchantID: merchantID, key: "k1", record: first))
            else {
                Issue.record("the first request under k1 must create its order")
                return
            }
            #expect(order.orderIdentifier == "A" && order.version == 1)
            // A second request under the same key gets the first response, and its order is not written.
            let replayed = try await store.createOrder(
                fixture.order("B"), idempotency: IdempotencyClaim(merchantID: merchantID, key: "k1", record: second))
            #expect(replayed == .replayed(first))
            #expect(try await store.order(type: fixture.orderType, id: "B") == nil)
            #expect(try await store.idempotentResponse(merchantID: merchantID, key: "k1") == first)
            // An order that cannot be created leaves its key unclaimed (one transaction).
            await #expect(throws: OrderStoreError.orderAlreadyExists(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")) {
                try await store.createOrder(fixture.order("A"), idempotency: IdempotencyClaim(merchantID: merchantID, key: "k2", record: second))
            }
            #expect(try await store.idempotentResponse(merchantID: merchantID, key: "k2") == nil)

            // Keys are per merchant.
            let other = try await store.createMerchant(name: "Other")
            #expect(try await store.idempotentResponse(merchantID: other.id, key: "k1") == nil)

            #expect(try await store.deleteIdempotentResponses(createdBefore: created) == 0)
            #expect(try await store.deleteIdempotentResponses(createdBefore: created.addingTimeInterval(1)) == 1)
            #expect(try await store.idempotentResponse(merchantID: merchantID, key: "k1") == nil)
        }
    }

    @Test func assetsAreStoredReplacedListedAndDeleted() async throws {
        try await withStore { store, _ in
            let merchant = try await store.createMerchant(name: "Shop")
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00]
            let info = try await store.putAsset(merchantID: merchant.id, name: "logo.png", contentType: "image/png", bytes: png, sha256: "aa")
            #expect(info.size == png.count)
            let stored = try #require(try await store.asset(merchantID: merchant.id, name: "logo.png"))
            #expect(stored.bytes == png)
            #expect(stored.info == info)

            try await store.putAsset(merchantID: merchant.id, name: "logo.png", contentType: "image/jpeg", bytes: [1, 2], sha256: "bb")
            try await store.putAsset(merchantID: merchant.id, name: "banner.png", contentType: "image/png", bytes: [3], sha256: "cc")
            let replaced = try #require(try await store.asset(merchantID: merchant.id, name: "logo.png"))
            #expect(replaced.bytes == [1, 2])
            #expect(replaced.info.contentType == "image/jpeg")
            #expect(replaced.info.sha256 == "bb")
            #expect(try await store.assets(merchantID: merchant.id).map(\.name) == ["banner.png", "logo.png"])

            let other = try await store.createMerchant(name: "Other")
            #expect(try await store.asset(merchantID: other.id, name: "logo.png") == nil)
            #expect(try await store.deleteAsset(merchantID: other.id, name: "logo.png") == false)
            #expect(try await store.deleteAsset(merchantID: merchant.id, name: "logo.png"))
            #expect(try await store.asset(merchantID: merchant.id, name: "logo.png") == nil)
            await #expect(throws: OrderStoreError.merchantNotFound(id: "ghost")) {
                try await store.putAsset(merchantID: "ghost", name: "a", contentType: "image/png", bytes: [], sha256: "")
            }
        }
    }

    @Test func packageCacheKeepsOnlyTheLatestVersion() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let type = fixture.orderType
            try await store.createOrder(fixture.order("A"))

            #expect(try await store.cachedPackage(type: type, id: "A", version: 1) == nil)
            try await store.storePackage(type: type, id: "A", version: 1, bytes: [1])
            #expect(try await store.cachedPackage(type: type, id: "A", version: 1) == [1])
            #expect(try await store.cachedPackage(type: type, id: "A", version: 2) == nil)

            try await store.storePackage(type: type, id: "A", version: 2, bytes: [2])
            #expect(try await store.cachedPackage(type: type, id: "A", version: 1) == nil)
            #expect(try await store.cachedPackage(type: type, id: "A", version: 2) == [2])

            // A late build of an older version does not replace the newer package.
            try await store.storePackage(type: type, id: "A", version: 1, bytes: [9])
            #expect(try await store.cachedPackage(type: type, id: "A", version: 2) == [2])
            #expect(try await store.cachedPackage(type: type, id: "A", version: 1) == nil)

            await #expect(throws: OrderStoreError.orderNotFound(orderTypeIdentifier: type, orderIdentifier: "B")) {
                try await store.storePackage(type: type, id: "B", version: 1, bytes: [1])
            }
        }
    }

    @Test func packagesStoredTogetherEachGetTheirOwnAnswer() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let type = fixture.orderType
            for index in 0..<20 { try await store.createOrder(fixture.order("P\(index)")) }
            // 24 stores at once share transactions; the four of missing orders fail alone. A second version of P0
            // built at the same time replaces the first, whichever batch either lands in.
            let results = await withTaskGroup(of: (Int, Bool).self) { group in
                group.addTask { (-1, (try? await store.storePackage(type: type, id: "P0", version: 2, bytes: [200])) != nil) }
                for index in 0..<24 {
                    group.addTask {
                        do {
                            try await store.storePackage(type: type, id: "P\(index)", version: 1, bytes: [UInt8(index)])
                            return (index, true)
                        } catch {
                            let missing = OrderStoreError.orderNotFound(orderTypeIdentifier: type, orderIdentifier: "P\(index)")
                            return (index, error as? OrderStoreError != missing)
                        }
                    }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results.filter { $0.value }.keys.sorted() == Array(-1..<20), "stored, and the missing orders refused: \(results)")
            #expect(try await store.cachedPackage(type: type, id: "P0", version: 2) == [200])
            for index in 1..<20 {
                #expect(try await store.cachedPackage(type: type, id: "P\(index)", version: 1) == [UInt8(index)])
            }
        }
    }

    @Test func aNewSigningIdentityDropsTheTypesCachedPackages() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            try await store.createOrder(fixture.order("A"))
            try await store.storePackage(type: fixture.orderType, id: "A", version: 1, bytes: [1])
            var record = try #require(try await store.orderType(fixture.orderType))

            record.apnsToken = APNsTokenConfig(p8PEM: "-----BEGIN PRIVATE KEY-----", keyID: "KEY1234567", teamID: "TEAM123456")
            try await store.upsertOrderType(record)
            #expect(try await store.cachedPackage(type: fixture.orderType, id: "A", version: 1) == [1], "same identity: packages stay")

            record.identity = .directory(path: "/etc/ordertrack/rotated-identity")
            try await store.upsertOrderType(record)
            #expect(try await store.cachedPackage(type: fixture.orderType, id: "A", version: 1) == nil, "signed with the old identity")
        }
    }
}

extension IdempotencyRecord {
    var withMillisecondDate: IdempotencyRecord {
        var copy = self
        copy.createdAt = milliseconds(createdAt)
        return copy
    }
}
