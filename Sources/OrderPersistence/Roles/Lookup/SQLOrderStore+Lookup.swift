import Foundation
import SQLKit

extension SQLOrderStore {
    static let lookupKeyColumns = ["key_id", "merchant_id", "issuer_id", "bundle_id", "public_key_pem", "created_at", "revoked_at"]
    static let lookupChainColumns = [
        "leaf_private_key_pem", "leaf_certificate_pem", "intermediate_certificate_pem", "root_certificate_pem", "created_at",
    ]
    /// The single row of `lookup_signing_chain`.
    static let deploymentChainID = "deployment"

    /// Stores a new lookup key.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``.
    public func addLookupKey(_ record: LookupKeyRecord) async throws {
        try await write("add lookup key for merchant \(record.merchantID)") { db in
            try await Self.requireMerchant(db, record.merchantID)
            try await db.insert(into: "lookup_keys").columns(Self.lookupKeyColumns)
                .values(
                    record.keyID, record.merchantID, record.issuerID, record.bundleID, record.publicKeyPEM,
                    record.createdAt.millisecondsSince1970, record.revokedAt?.millisecondsSince1970
                )
                .run()
        }
    }

    /// The lookup key with this id, revoked or not, whatever its merchant.
    public func lookupKey(id keyID: String) async throws -> LookupKeyRecord? {
        // Raw text, as for the orders below: a lookup makes both reads, and SQLKit's builder quoting each column cost
        // more than the statement (`bench lookup`).
        try await read("read lookup key") { db in
            try await db.raw("SELECT \(unsafeRaw: Self.lookupKeyColumns.joined(separator: ", ")) FROM lookup_keys WHERE key_id = \(bind: keyID)")
                .first().map(Self.lookupKey(from:))
        }
    }

    /// The merchant's lookup keys, revoked ones included, oldest first.
    public func lookupKeys(merchantID: String) async throws -> [LookupKeyRecord] {
        try await read("list lookup keys of merchant \(merchantID)") { db in
            try await db.select().columns(Self.lookupKeyColumns).from("lookup_keys").where("merchant_id", .equal, merchantID)
                .orderBy("created_at").orderBy("key_id").all().map(Self.lookupKey(from:))
        }
    }

    /// Revokes one of the merchant's lookup keys (a second revocation keeps the first date); `nil` when the merchant
    /// has no key with this id.
    public func revokeLookupKey(merchantID: String, keyID: String, at date: Date) async throws -> LookupKeyRecord? {
        try await write("revoke lookup key of merchant \(merchantID)") { db in
            try await db.update("lookup_keys").set("revoked_at", to: date.millisecondsSince1970)
                .where("key_id", .equal, keyID).where("merchant_id", .equal, merchantID).where("revoked_at", .is, SQLLiteral.null)
                .run()
            return try await db.select().columns(Self.lookupKeyColumns).from("lookup_keys")
                .where("key_id", .equal, keyID).where("merchant_id", .equal, merchantID).first()
                .map(Self.lookupKey(from:))
        }
    }

    /// The deployment's transaction-signing chain, or `nil` before one is stored.
    public func lookupSigningChain() async throws -> LookupSigningChainRecord? {
        try await read("read lookup signing chain") { db in
            try await db.select().columns(Self.lookupChainColumns).from("lookup_signing_chain")
                .where("id", .equal, Self.deploymentChainID).first().map(self.lookupChain(from:))
        }
    }

    /// Stores `record` as the deployment's chain unless one is stored already, and answers the stored one: instances
    /// starting together agree on the first.
    public func storeLookupSigningChainIfAbsent(_ record: LookupSigningChainRecord) async throws -> LookupSigningChainRecord {
        try await write("store lookup signing chain") { db in
            if let existing = try await db.select().columns(Self.lookupChainColumns).from("lookup_signing_chain")
                .where("id", .equal, Self.deploymentChainID).first()
            {
                return try self.lookupChain(from: existing)
            }
            try await db.insert(into: "lookup_signing_chain").columns(["id"] + Self.lookupChainColumns)
                .values(
                    Self.deploymentChainID,
                    try self.seal(
                        Data(record.leafPrivateKeyPEM.utf8), table: "lookup_signing_chain", column: "leaf_private_key_pem",
                        key: Self.deploymentChainID),
                    record.leafCertificatePEM, record.intermediateCertificatePEM,
                    record.rootCertificatePEM, record.createdAt.millisecondsSince1970
                )
                .run()
            return record
        }
    }

    /// The merchant's orders whose order number, else order identifier, is `orderID`, oldest first, at most `limit`:
    /// orders stored before numbers were unique, or of several order types, may share a number, and a support agent
    /// must see all of them, never one at random.
    public func orders(merchantID: String, orderNumberOrIdentifier orderID: String, limit: Int) async throws -> [OrderRecord] {
        try await read("look up orders of merchant \(merchantID) by number") { db in
            for column in ["order_number", "order_identifier"] {
                let rows = try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.orderColumns.joined(separator: ", ")) FROM orders
                    WHERE merchant_id = \(bind: merchantID) AND \(unsafeRaw: column) = \(bind: orderID) ORDER BY created_sequence LIMIT \(bind: limit)
                    """
                ).all()
                if !rows.isEmpty { return try rows.map(Self.order(from:)) }
            }
            return []
        }
    }

    static func lookupKey(from row: any SQLRow) throws -> LookupKeyRecord {
        LookupKeyRecord(
            keyID: try row.string("key_id"), merchantID: try row.string("merchant_id"), issuerID: try row.string("issuer_id"),
            bundleID: try row.string("bundle_id"), publicKeyPEM: try row.string("public_key_pem"), createdAt: try row.date("created_at"),
            revokedAt: try row.decodeNil(column: "revoked_at") ? nil : try row.date("revoked_at"))
    }

    func lookupChain(from row: any SQLRow) throws -> LookupSigningChainRecord {
        let privateKey = try open(
            try row.string("leaf_private_key_pem"), table: "lookup_signing_chain", column: "leaf_private_key_pem", key: Self.deploymentChainID)
        return LookupSigningChainRecord(
            leafPrivateKeyPEM: String(decoding: privateKey, as: UTF8.self), leafCertificatePEM: try row.string("leaf_certificate_pem"),
            intermediateCertificatePEM: try row.string("intermediate_certificate_pem"),
            rootCertificatePEM: try row.string("root_certificate_pem"), createdAt: try row.date("created_at"))
    }
}
