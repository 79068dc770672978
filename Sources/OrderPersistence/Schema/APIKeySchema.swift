import SQLKit

/// Schema version 8: restricted API keys and the audit trail of order changes.
///
/// API keys get an id (what operators and the audit trail name; the secret stays a hash), a name, their scopes and
/// order types (`NULL`: every scope or every order type, which is what keys made before this version keep), an expiry,
/// a revocation date and the time of last use. Each change in `order_activity` records the key that made it, the
/// client address and the JSON diff of the change.
enum APIKeySchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // SQLite adds one column per ALTER TABLE.
        for (name, type) in [
            ("id", SQLDataType.text), ("name", .text), ("scopes", .text), ("order_types", .text), ("expires_at", .bigint),
            ("revoked_at", .bigint), ("last_used_at", .bigint),
        ] {
            try await db.alter(table: "api_keys").column(name, type: type).run()
        }
        // Existing keys get a stable id derived from their hash: it reveals nothing a listing did not show before.
        try await db.raw("UPDATE api_keys SET id = 'key_' || substr(key_hash, 1, 24), name = 'secret key'").run()
        try await db.create(index: "api_keys_id").unique().on("api_keys").column("id").run()

        for (name, type) in [("key_id", SQLDataType.text), ("key_name", .text), ("address", .text), ("diff", .text)] {
            try await db.alter(table: "order_activity").column(name, type: type).run()
        }
    }
}
