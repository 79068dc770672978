import Foundation
import SQLKit

extension SQLOrderStore {
    static let paymentIdentityColumns = [
        "id", "merchant_id", "merchant_identifier", "public_key_hash", "not_valid_after", "certificate_pem", "private_key_pem", "created_at",
    ]

    /// Stores a payment-processing identity; the same public key again for the merchant answers the stored one.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``.
    public func addPaymentIdentity(_ record: PaymentIdentityRecord) async throws -> PaymentIdentityRecord {
        try await write("add Apple Pay payment identity for merchant \(record.merchantID)") { db in
            try await Self.requireMerchant(db, record.merchantID)
            let existing = try await db.select().columns(Self.paymentIdentityColumns).from("apple_pay_payment_identities")
                .where("merchant_id", .equal, record.merchantID)
                .where("public_key_hash", .equal, record.publicKeyHash)
                .first()
            // The same certificate again answers the stored identity: uploads are retried.
            if let existing { return try self.paymentIdentity(from: existing) }
            try await db.insert(into: "apple_pay_payment_identities")
                .columns(Self.paymentIdentityColumns)
                .values(
                    record.id, record.merchantID, record.merchantIdentifier, record.publicKeyHash, record.notValidAfter.millisecondsSince1970,
                    record.certificatePEM,
                    try self.seal(Data(record.privateKeyPEM.utf8), table: "apple_pay_payment_identities", column: "private_key_pem", key: record.id),
                    record.createdAt.millisecondsSince1970
                )
                .run()
            return record
        }
    }

    /// The merchant's payment-processing identities, oldest first.
    public func paymentIdentities(merchantID: String) async throws -> [PaymentIdentityRecord] {
        try await read("list Apple Pay payment identities of merchant \(merchantID)") { db in
            try await db.select().columns(Self.paymentIdentityColumns).from("apple_pay_payment_identities")
                .where("merchant_id", .equal, merchantID)
                .orderBy("created_at")
                .orderBy("id")
                .all()
                .map(self.paymentIdentity(from:))
        }
    }

    /// Deletes one of the merchant's payment-processing identities; `false` if it has none with this id.
    public func deletePaymentIdentity(merchantID: String, id: String) async throws -> Bool {
        try await write("delete Apple Pay payment identity \(id)") { db in
            let found = try await db.select().column("id").from("apple_pay_payment_identities")
                .where("merchant_id", .equal, merchantID)
                .where("id", .equal, id)
                .first()
            guard found != nil else { return false }
            try await db.delete(from: "apple_pay_payment_identities").where("merchant_id", .equal, merchantID).where("id", .equal, id).run()
            return true
        }
    }

    /// Creates or replaces the merchant's Merchant Identity configuration.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``.
    public func putApplePayMerchantIdentity(_ record: ApplePayMerchantIdentityRecord) async throws {
        let domains = try Self.encodeJSON(record.domains, name: "domains")
        let pkcs12 = Data(try seal(record.pkcs12, table: "apple_pay_merchant_identities", column: "pkcs12", key: record.merchantID).utf8)
        let password = try seal(Data(record.password.utf8), table: "apple_pay_merchant_identities", column: "password", key: record.merchantID)
        try await write("save Apple Pay merchant identity of merchant \(record.merchantID)") { db in
            try await Self.requireMerchant(db, record.merchantID)
            try await db.insert(into: "apple_pay_merchant_identities")
                .columns("merchant_id", "merchant_identifier", "display_name", "domains", "pkcs12", "password", "updated_at")
                .values(
                    record.merchantID, record.merchantIdentifier, record.displayName, domains, pkcs12, password,
                    record.updatedAt.millisecondsSince1970
                )
                .onConflict(with: "merchant_id") {
                    $0.set(excludedValueOf: "merchant_identifier").set(excludedValueOf: "display_name").set(excludedValueOf: "domains")
                        .set(excludedValueOf: "pkcs12").set(excludedValueOf: "password").set(excludedValueOf: "updated_at")
                }
                .run()
        }
    }

    /// The merchant's Merchant Identity configuration, or `nil`.
    ///
    /// - Throws: ``OrderStoreError/corruptRecord(table:reason:)`` when its stored domains do not decode.
    public func applePayMerchantIdentity(merchantID: String) async throws -> ApplePayMerchantIdentityRecord? {
        try await read("read Apple Pay merchant identity of merchant \(merchantID)") { db in
            guard
                let row = try await db.select()
                    .columns("merchant_id", "merchant_identifier", "display_name", "domains", "pkcs12", "password", "updated_at")
                    .from("apple_pay_merchant_identities")
                    .where("merchant_id", .equal, merchantID)
                    .first()
            else { return nil }
            let domains: [String]
            do {
                domains = try JSONDecoder().decode([String].self, from: Data(try row.string("domains").utf8))
            } catch {
                throw OrderStoreError.corruptRecord(table: "apple_pay_merchant_identities", reason: "domains: \(error)")
            }
            let merchant = try row.string("merchant_id")
            let table = "apple_pay_merchant_identities"
            let pkcs12 = try self.open(String(decoding: try row.bytes("pkcs12"), as: UTF8.self), table: table, column: "pkcs12", key: merchant)
            let password = try self.open(try row.string("password"), table: table, column: "password", key: merchant)
            return ApplePayMerchantIdentityRecord(
                merchantID: merchant, merchantIdentifier: try row.string("merchant_identifier"),
                displayName: try row.string("display_name"), domains: domains, pkcs12: Array(pkcs12),
                password: String(decoding: password, as: UTF8.self), updatedAt: try row.date("updated_at"))
        }
    }

    func paymentIdentity(from row: any SQLRow) throws -> PaymentIdentityRecord {
        let id = try row.string("id")
        let privateKey = try open(try row.string("private_key_pem"), table: "apple_pay_payment_identities", column: "private_key_pem", key: id)
        return PaymentIdentityRecord(
            id: id, merchantID: try row.string("merchant_id"), merchantIdentifier: try row.string("merchant_identifier"),
            publicKeyHash: try row.string("public_key_hash"), notValidAfter: try row.date("not_valid_after"),
            certificatePEM: try row.string("certificate_pem"), privateKeyPEM: String(decoding: privateKey, as: UTF8.self),
            createdAt: try row.date("created_at"))
    }
}
