import Foundation
import SQLKit

extension SQLOrderStore {
    static let apiKeyColumns = [
        "id", "merchant_id", "name", "prefix", "scopes", "order_types", "created_at", "expires_at", "revoked_at", "last_used_at",
    ]

    /// Stores an API key by its SHA-256 (lowercase hex, computed by the caller). Scopes and order types are stored as
    /// space-separated lists: neither scopes nor identifiers contain spaces.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``, or ``OrderStoreError/apiKeyAlreadyExists(prefix:)`` when the
    ///   hash is stored already.
    public func addAPIKey(_ key: APIKeyInfo, keyHash: String) async throws {
        try await write("add an API key for merchant \(key.merchantID)") { db in
            try await Self.requireMerchant(db, key.merchantID)
            let inserted = try await db.insert(into: "api_keys")
                .columns(["key_hash"] + Self.apiKeyColumns)
                .values(
                    keyHash, key.id, key.merchantID, key.name, key.prefix, key.scopes.map(Self.list), key.orderTypeIdentifiers.map(Self.list),
                    key.createdAt.millisecondsSince1970, key.expiresAt?.millisecondsSince1970, key.revokedAt?.millisecondsSince1970,
                    key.lastUsedAt?.millisecondsSince1970
                )
                .ignoringConflicts(with: "key_hash")
                .returning("key_hash")
                .first()
            guard inserted != nil else { throw OrderStoreError.apiKeyAlreadyExists(prefix: key.prefix) }
        }
    }

    /// The merchant owning the unrestricted, unrevoked and unexpired API key with this SHA-256, if any.
    public func merchant(forAPIKeyHash keyHash: String) async throws -> MerchantRecord? {
        guard let found = try await apiKey(forHash: keyHash), found.key.scopes == nil, found.key.isUsable(at: now()) else { return nil }
        return found.merchant
    }

    /// The key whose earlier secret had this SHA-256, and when a rotation replaced it; `nil` when no rotation did.
    public func retiredAPIKey(forHash keyHash: String) async throws -> (keyID: String, retiredAt: Date)? {
        try await read("look up a rotated API key secret") { db in
            guard
                let row = try await db.select().column("key_id").column("retired_at").from("retired_api_key_hashes")
                    .where("key_hash", .equal, keyHash).first()
            else { return nil }
            return (try row.string("key_id"), try row.date("retired_at"))
        }
    }

    /// The API key with this SHA-256 and its merchant: one primary-key lookup per authenticated request.
    public func apiKey(forHash keyHash: String) async throws -> (key: APIKeyInfo, merchant: MerchantRecord)? {
        try await read("look up an API key") { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT k.id, k.merchant_id, k.name, k.prefix, k.scopes, k.order_types, k.created_at AS created_at, k.expires_at, \
                    k.revoked_at, k.last_used_at, m.name AS merchant_name, m.created_at AS merchant_created_at \
                    FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_hash = \(bind: keyHash)
                    """
                ).first()
            else { return nil }
            let key = try Self.apiKey(from: row)
            return (key, MerchantRecord(id: key.merchantID, name: try row.string("merchant_name"), createdAt: try row.date("merchant_created_at")))
        }
    }

    /// A merchant's API keys, revoked ones included, oldest first.
    public func apiKeys(merchantID: String) async throws -> [APIKeyInfo] {
        try await read("list API keys of merchant \(merchantID)") { db in
            try await db.select().columns(Self.apiKeyColumns).from("api_keys")
                .where("merchant_id", .equal, merchantID)
                .orderBy("created_at").orderBy("id")
                .all()
                .map(Self.apiKey(from:))
        }
    }

    /// Revokes one of the merchant's API keys; a second revocation keeps the first date.
    public func revokeAPIKey(merchantID: String, id: String, at date: Date) async throws -> APIKeyInfo? {
        try await write("revoke an API key of merchant \(merchantID)") { db in
            try await db.update("api_keys").set("revoked_at", to: date.millisecondsSince1970)
                .where("id", .equal, id).where("merchant_id", .equal, merchantID).where("revoked_at", .is, SQLLiteral.null)
                .run()
            try await Self.endDashboardSessions(db, apiKeyID: id, merchantID: merchantID)
            return try await Self.apiKey(db, merchantID: merchantID, id: id)
        }
    }

    /// Replaces the secret of one of the merchant's unrevoked keys: the hash is the key's primary key, so the old
    /// secret finds nothing from this write on.
    public func replaceAPIKeySecret(merchantID: String, id: String, keyHash: String, prefix: String) async throws -> APIKeyInfo? {
        try await write("rotate an API key of merchant \(merchantID)") { db in
            // The old secret's hash is kept, so its next use is told it was rotated (and when).
            try await db.raw(
                """
                INSERT INTO retired_api_key_hashes (key_hash, key_id, merchant_id, retired_at) \
                SELECT key_hash, id, merchant_id, \(bind: self.now().millisecondsSince1970) FROM api_keys \
                WHERE id = \(bind: id) AND merchant_id = \(bind: merchantID) AND revoked_at IS NULL
                """
            ).run()
            let updated = try await db.update("api_keys").set("key_hash", to: keyHash).set("prefix", to: prefix)
                .where("id", .equal, id).where("merchant_id", .equal, merchantID).where("revoked_at", .is, SQLLiteral.null)
                .returning("id")
                .first()
            guard updated != nil else { return nil }
            try await Self.endDashboardSessions(db, apiKeyID: id, merchantID: merchantID)
            return try await Self.apiKey(db, merchantID: merchantID, id: id)
        }
    }

    /// Deletes the dashboard sessions a key opened, in the transaction that revokes or rotates it: the session lookup
    /// would refuse them anyway, and none is left behind to outlive the key.
    static func endDashboardSessions(_ db: any SQLDatabase, apiKeyID: String, merchantID: String) async throws {
        try await db.delete(from: "dashboard_sessions").where("api_key_id", .equal, apiKeyID).where("merchant_id", .equal, merchantID).run()
    }

    /// Records when keys were used, one transaction for all of them; a key whose recorded use is less than
    /// `interval` before the new one keeps it.
    public func recordAPIKeyUses(_ uses: [String: Date], unlessUsedWithin interval: TimeInterval) async throws {
        guard !uses.isEmpty else { return }
        try await write("record the use of \(uses.count) API keys") { db in
            for (id, date) in uses.sorted(by: { $0.key < $1.key }) {
                try await db.update("api_keys").set("last_used_at", to: date.millisecondsSince1970)
                    .where("id", .equal, id)
                    .where {
                        $0.where("last_used_at", .is, SQLLiteral.null)
                            .orWhere("last_used_at", .lessThan, date.addingTimeInterval(-interval).millisecondsSince1970)
                    }
                    .run()
            }
        }
    }

    private static func apiKey(_ db: any SQLDatabase, merchantID: String, id: String) async throws -> APIKeyInfo? {
        try await db.select().columns(apiKeyColumns).from("api_keys").where("id", .equal, id).where("merchant_id", .equal, merchantID)
            .first().map(apiKey(from:))
    }

    static func apiKey(from row: any SQLRow) throws -> APIKeyInfo {
        let optionalDate = { (column: String) in try row.decodeNil(column: column) ? nil : try row.date(column) }
        return APIKeyInfo(
            id: try row.string("id"), merchantID: try row.string("merchant_id"), name: try row.string("name"), prefix: try row.string("prefix"),
            scopes: try row.optionalString("scopes").map(items), orderTypeIdentifiers: try row.optionalString("order_types").map(items),
            createdAt: try row.date("created_at"), expiresAt: try optionalDate("expires_at"), revokedAt: try optionalDate("revoked_at"),
            lastUsedAt: try optionalDate("last_used_at"))
    }

    private static func list(_ items: [String]) -> String { items.sorted().joined(separator: " ") }

    private static func items(_ list: String) -> [String] { list.split(separator: " ").map(String.init) }
}
