import SQLKit

/// Schema version 6: what merchants moving from a payment provider need. Each merchant's order defaults, which fill
/// what the provider's simplified order form lacks; orders found by authentication token, for the provider's push
/// registration; and "Track in Wallet" links, which hand an order's signed package to whoever holds the link until it
/// expires or is revoked.
enum ProviderSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.create(table: "merchant_order_defaults")
            .column("merchant_id", type: .text, .primaryKey(autoIncrement: false))
            .column("order_management_url", type: .text)
            .column("fulfillment_type", type: .text)
            .column("payment_status", type: .text)
            .column("updated_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()

        // The providers' `POST /v1/push` names no order: the order is the one its authentication token belongs to.
        try await db.create(index: "orders_authentication_token").on("orders").column("authentication_token").run()

        // Only the SHA-256 of a link's token is stored: a copy of the table opens no order.
        try await db.create(table: "wallet_links")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("token_hash", type: .text, .notNull, .unique)
            .column("merchant_id", type: .text, .notNull)
            .column("order_type_identifier", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("revoked_at", type: .bigint)
            .foreignKey(
                ["order_type_identifier", "order_identifier"], references: "orders", ["order_type_identifier", "order_identifier"],
                onDelete: .cascade
            )
            .run()
        // Deleting an order deletes its links: without this index PostgreSQL would scan the table for each order.
        try await db.create(index: "wallet_links_order").on("wallet_links").column("order_type_identifier").column("order_identifier").run()
        // Retention deletes links long expired by this index.
        try await db.create(index: "wallet_links_expires").on("wallet_links").column("expires_at").run()
    }
}
