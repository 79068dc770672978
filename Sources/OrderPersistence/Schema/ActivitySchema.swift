import SQLKit

/// Schema version 5: each order's activity (changes, registrations, package fetches) for the dashboard's transcript,
/// and the indexes that keep the dashboard's list fast at 100,000 orders a merchant: newest first within one status,
/// and an order found by its identifier.
enum ActivitySchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.create(table: "order_activity")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("order_type_identifier", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("kind", type: .text, .notNull)
            .column("version", type: .bigint)
            .column("author", type: .text)
            .column("detail", type: .text)
            .column("status", type: .bigint)
            .column("at", type: .bigint, .notNull)
            .run()
        // The transcript reads an order's newest entries, and the live refresh its latest id: one index range each.
        try await db.create(index: "order_activity_order").on("order_activity")
            .column("order_type_identifier").column("order_identifier").column("id").run()
        // Retention deletes by age.
        try await db.create(index: "order_activity_at").on("order_activity").column("at").run()

        // A status filter walks this merchant's orders of that status newest first, however rare the status.
        try await db.create(index: "orders_merchant_status_created").on("orders")
            .column("merchant_id").column("status").column("created_sequence").run()
        // The primary key leads with the order type: a search by identifier alone needs its own index.
        try await db.create(index: "orders_merchant_identifier").on("orders").column("merchant_id").column("order_identifier").run()
    }
}
