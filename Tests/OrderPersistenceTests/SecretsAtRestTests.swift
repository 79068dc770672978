import Foundation
import SQLKit
import TestSupport
import Testing

@testable import OrderPersistence

#if canImport(Glibc)
    import Glibc
#endif

/// Audit finding H3: private keys and passwords are sealed with the master key, database files are private.
@Suite(.serialized) struct SecretsAtRestTests {
    /// Distinctive text inside every secret, to look for in dumps.
    static let markers = [
        "PKCS12-ORDER-TYPE-MARKER", "order-type-p12-password-marker", "P8-APNS-KEY-MARKER", "APPLE-PAY-PAYMENT-KEY-MARKER",
        "APPLE-PAY-MERCHANT-P12-MARKER", "apple-pay-p12-password-marker", "LOOKUP-LEAF-KEY-MARKER", "CARRIER-WEBHOOK-SECRET-MARKER",
    ]

    /// Stores one of every secret the store keeps (with the markers inside) and answers the merchant id.
    static func storeEverySecret(_ store: SQLOrderStore) async throws -> String {
        let merchant = try await store.createMerchant(name: "Secretive")
        try await store.upsertOrderType(
            OrderTypeRecord(
                orderTypeIdentifier: "order.com.example.secret", merchantID: merchant.id,
                identity: .pkcs12(bytes: Array("PKCS12-ORDER-TYPE-MARKER".utf8), password: "order-type-p12-password-marker", wwdrPEM: nil),
                apnsToken: APNsTokenConfig(
                    p8PEM: "-----BEGIN PRIVATE KEY-----\nP8-APNS-KEY-MARKER\n-----END PRIVATE KEY-----", keyID: "K", teamID: "T")))
        _ = try await store.addPaymentIdentity(
            PaymentIdentityRecord(
                id: "pay-1", merchantID: merchant.id, merchantIdentifier: "merchant.com.example", publicKeyHash: "hash",
                notValidAfter: Date(timeIntervalSince1970: 2_000_000_000), certificatePEM: "CERT",
                privateKeyPEM: "-----BEGIN EC PRIVATE KEY-----\nAPPLE-PAY-PAYMENT-KEY-MARKER\n-----END EC PRIVATE KEY-----", createdAt: Date()))
        try await store.putApplePayMerchantIdentity(
            ApplePayMerchantIdentityRecord(
                merchantID: merchant.id, merchantIdentifier: "merchant.com.example", displayName: "Shop", domains: ["shop.example"],
                pkcs12: Array("APPLE-PAY-MERCHANT-P12-MARKER".utf8), password: "apple-pay-p12-password-marker", updatedAt: Date()))
        _ = try await store.storeLookupSigningChainIfAbsent(
            LookupSigningChainRecord(
                leafPrivateKeyPEM: "-----BEGIN PRIVATE KEY-----\nLOOKUP-LEAF-KEY-MARKER\n-----END PRIVATE KEY-----", leafCertificatePEM: "LEAF",
                intermediateCertificatePEM: "INTERMEDIATE", rootCertificatePEM: "ROOT", createdAt: Date()))
        try await store.addCarrierConnection(
            CarrierConnectionRecord(
                id: "carrier-1", merchantID: merchant.id, provider: "generic", secret: "CARRIER-WEBHOOK-SECRET-MARKER", createdAt: Date()))
        return merchant.id
    }

    /// Reads every secret back and checks it is the one stored.
    static func expectEverySecretReadsBack(_ store: SQLOrderStore, merchantID: String) async throws {
        let type = try #require(try await store.orderType("order.com.example.secret"))
        #expect(type.identity == .pkcs12(bytes: Array("PKCS12-ORDER-TYPE-MARKER".utf8), password: "order-type-p12-password-marker", wwdrPEM: nil))
        #expect(type.apnsToken?.p8PEM.contains("P8-APNS-KEY-MARKER") == true)
        #expect(try await store.paymentIdentities(merchantID: merchantID).first?.privateKeyPEM.contains("APPLE-PAY-PAYMENT-KEY-MARKER") == true)
        let merchantIdentity = try #require(try await store.applePayMerchantIdentity(merchantID: merchantID))
        #expect(merchantIdentity.pkcs12 == Array("APPLE-PAY-MERCHANT-P12-MARKER".utf8))
        #expect(merchantIdentity.password == "apple-pay-p12-password-marker")
        #expect(try await store.lookupSigningChain()?.leafPrivateKeyPEM.contains("LOOKUP-LEAF-KEY-MARKER") == true)
        #expect(try await store.carrierConnection(id: "carrier-1")?.secret == "CARRIER-WEBHOOK-SECRET-MARKER")
    }

    /// The markers found in `dump`, also as the JSON byte arrays a PKCS#12 is encoded as in an identity.
    static func markersFound(in dump: String) -> [String] {
        markers.filter { marker in
            dump.contains(marker) || dump.contains(Array(marker.utf8).map(String.init).joined(separator: ","))
        }
    }

    @Test func h3_aSQLiteDumpRevealsNoPrivateKeyOrPassword() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try await SQLOrderStore.sqlite(path: directory.databasePath, masterKey: testMasterKey)
        let merchantID = try await Self.storeEverySecret(store)
        try await Self.expectEverySecretReadsBack(store, merchantID: merchantID)
        try await store.shutdown()

        let dump = await String(decoding: try ExternalTools.run("/usr/bin/sqlite3", [directory.databasePath, ".dump"]), as: UTF8.self)
        #expect(dump.contains("order.com.example.secret"), "the dump holds the rows")
        #expect(dump.contains(SecretSealer.prefix))
        #expect(Self.markersFound(in: dump).isEmpty, "found in the dump: \(Self.markersFound(in: dump))")
        // The raw file bytes too (free pages and the WAL would keep old clear values).
        for file in [directory.databasePath, directory.databasePath + "-wal"] {
            guard let bytes = FileManager.default.contents(atPath: file) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(Self.markersFound(in: text).isEmpty, "found in \(file): \(Self.markersFound(in: text))")
        }
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil && pgDump != nil, Comment(rawValue: TestDatabase.skipReason)))
    func h3_aPostgreSQLDumpRevealsNoPrivateKeyOrPassword() async throws {
        let url = try TestDatabase.freshPostgresURL()
        let store = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        let merchantID = try await Self.storeEverySecret(store)
        try await Self.expectEverySecretReadsBack(store, merchantID: merchantID)
        try await store.shutdown()

        var components = try #require(URLComponents(string: url))
        let schema = try #require(components.queryItems?.first { $0.name == "schema" }?.value)
        components.queryItems = components.queryItems?.filter { $0.name == "sslmode" }
        let dump = await String(
            decoding: try ExternalTools.run(try #require(Self.pgDump), ["--dbname", try #require(components.string), "--schema", schema]),
            as: UTF8.self)
        #expect(dump.contains("order.com.example.secret"), "the dump holds the rows")
        #expect(dump.contains(SecretSealer.prefix))
        #expect(Self.markersFound(in: dump).isEmpty, "found in the dump: \(Self.markersFound(in: dump))")
    }

    static let pgDump: String? = {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    @Test func h3_aSecretCopiedToAnotherRowDoesNotOpen() async throws {
        try await withStore { store, _ in
            let victim = try await store.createMerchant(name: "Victim")
            let thief = try await store.createMerchant(name: "Thief")
            try await store.upsertOrderType(
                OrderTypeRecord(
                    orderTypeIdentifier: "order.com.victim", merchantID: victim.id,
                    identity: .pkcs12(bytes: [1, 2, 3], password: "victim", wwdrPEM: nil)))
            try await store.upsertOrderType(
                OrderTypeRecord(orderTypeIdentifier: "order.com.thief", merchantID: thief.id, identity: .directory(path: "/thief")))
            // Both opened once first: the store keeps what it opened by sealed text, never by the text alone.
            #expect(try await store.orderType("order.com.victim")?.merchantID == victim.id)
            #expect(try await store.orderType("order.com.thief")?.identity == .directory(path: "/thief"))
            try await store.write("copy a sealed identity") { db in
                try await db.raw(
                    """
                    UPDATE order_types SET identity = (SELECT identity FROM order_types WHERE order_type_identifier = 'order.com.victim') \
                    WHERE order_type_identifier = 'order.com.thief'
                    """
                ).run()
            }
            await #expect(throws: OrderStoreError.self) { try await store.orderType("order.com.thief") }
            #expect(try await store.orderType("order.com.victim")?.identity == .pkcs12(bytes: [1, 2, 3], password: "victim", wwdrPEM: nil))
        }
    }

    @Test func h3_anotherMasterKeyIsRefusedWhenTheStoreOpens() async throws {
        let location = try TestStoreLocation()
        defer { location.cleanup() }
        let store = try await location.open()
        _ = try await Self.storeEverySecret(store)
        try await store.shutdown()
        await #expect(throws: OrderStoreError.wrongMasterKey) { try await location.open(masterKey: .generate()) }
    }

    @Test func h3_secretsStoredInClearByAnOlderVersionAreSealedOnTheFirstOpenWithAKey() async throws {
        let location = try TestStoreLocation()
        defer { location.cleanup() }
        let store = try await location.open()
        let merchantID = try await Self.storeEverySecret(store)
        // What schema 8 left: clear values and no key check.
        try await store.write("store secrets in clear") { db in
            try await db.update("order_types")
                .set(
                    "identity",
                    to:
                        #"{"pkcs12":{"bytes":[80,75,67,83,49,50,45,79,82,68,69,82,45,84,89,80,69,45,77,65,82,75,69,82],"password":"order-type-p12-password-marker"}}"#
                )
                .set(
                    "apns_token",
                    to: #"{"keyID":"K","p8PEM":"-----BEGIN PRIVATE KEY-----\nP8-APNS-KEY-MARKER\n-----END PRIVATE KEY-----","teamID":"T"}"#
                )
                .run()
            try await db.update("apple_pay_payment_identities").set("private_key_pem", to: "APPLE-PAY-PAYMENT-KEY-MARKER").run()
            try await db.update("apple_pay_merchant_identities")
                .set("pkcs12", to: Data("APPLE-PAY-MERCHANT-P12-MARKER".utf8)).set("password", to: "apple-pay-p12-password-marker").run()
            try await db.update("lookup_signing_chain").set("leaf_private_key_pem", to: "LOOKUP-LEAF-KEY-MARKER").run()
            try await db.delete(from: "master_key_check").run()
        }
        try await store.shutdown()

        let reopened = try await location.open()
        try await Self.expectEverySecretReadsBack(reopened, merchantID: merchantID)
        let stored = try await reopened.read("read raw secrets") { db in
            try await db.select().column("identity").column("apns_token").from("order_types").first()
        }
        let row = try #require(stored)
        #expect(SecretSealer.isSealed(try row.string("identity")))
        #expect(SecretSealer.isSealed(try row.string("apns_token")))
        try await reopened.shutdown()
        await #expect(throws: OrderStoreError.wrongMasterKey) { try await location.open(masterKey: .generate()) }
    }

    @Test func h3_rotatingTheMasterKeyReSealsEverySecret() async throws {
        let location = try TestStoreLocation()
        defer { location.cleanup() }
        let store = try await location.open()
        let merchantID = try await Self.storeEverySecret(store)
        let newKey = MasterKey.generate()
        try await store.rotateMasterKey(to: newKey)
        try await Self.expectEverySecretReadsBack(store, merchantID: merchantID)
        try await store.shutdown()

        await #expect(throws: OrderStoreError.wrongMasterKey) { try await location.open() }
        let reopened = try await location.open(masterKey: newKey)
        try await Self.expectEverySecretReadsBack(reopened, merchantID: merchantID)
        try await reopened.shutdown()
    }

    @Test func h3_masterKeysMustBeBase64Of32Bytes() throws {
        #expect(try MasterKey(base64: MasterKey.generate().base64 + "\n", source: "test").base64.count == 44)
        #expect(throws: OrderStoreError.self) { try MasterKey(base64: "not base64!", source: "ORDERTRACK_MASTER_KEY") }
        #expect {
            try MasterKey(base64: Data(repeating: 7, count: 16).base64EncodedString(), source: "ORDERTRACK_MASTER_KEY")
        } throws: { error in
            "\(error)".contains("ORDERTRACK_MASTER_KEY") && "\(error)".contains("16 bytes, not 32")
        }
    }

    @Test func h3_databaseFilesAre0600UnderUmask022() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try await SQLOrderStore.sqlite(path: directory.databasePath, masterKey: testMasterKey)
        _ = try await store.createMerchant(name: "Modes")
        for file in [directory.databasePath, directory.databasePath + "-wal", directory.databasePath + "-shm"] {
            #expect(try Self.mode(file) == 0o600, "\(file)")
        }
        try await store.shutdown()

        // Files an older version created with the umask's mode are narrowed when opened.
        for file in [directory.databasePath, directory.databasePath + "-wal", directory.databasePath + "-shm"]
        where FileManager.default.fileExists(atPath: file) {
            chmod(file, 0o644)
        }
        let reopened = try await SQLOrderStore.sqlite(path: directory.databasePath, masterKey: testMasterKey)
        for file in [directory.databasePath, directory.databasePath + "-wal", directory.databasePath + "-shm"] {
            #expect(try Self.mode(file) == 0o600, "\(file)")
        }
        try await reopened.shutdown()
    }

    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }
}
