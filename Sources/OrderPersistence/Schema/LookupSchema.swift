import SQLKit

/// Schema version 7: order lookup (the App Store Server API's "Look Up Order ID"): merchants' lookup keys and the
/// deployment's transaction-signing chain.
enum LookupSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // Only the public half of a key is stored; its private .p8 went to the merchant once.
        try await db.create(table: "lookup_keys")
            .column("key_id", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("issuer_id", type: .text, .notNull)
            .column("bundle_id", type: .text, .notNull)
            .column("public_key_pem", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("revoked_at", type: .bigint)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "lookup_keys_merchant").on("lookup_keys").column("merchant_id").run()
        // One row: the chain is per deployment. The leaf key is a secret like the signing keys of other tables.
        try await db.create(table: "lookup_signing_chain")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("leaf_private_key_pem", type: .text, .notNull)
            .column("leaf_certificate_pem", type: .text, .notNull)
            .column("intermediate_certificate_pem", type: .text, .notNull)
            .column("root_certificate_pem", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
        // Lookups find orders by number or identifier among a merchant's orders through orders_merchant_order_number
        // (schema 4) and orders_merchant_identifier (schema 5); a second index on the same columns would only cost writes.
    }
}
