import SQLKit

/// Schema version 20: the merchants' event log (issue #32), written in the transaction of each change it reports, for
/// the events API and the webhook deliveries that follow it.
enum EventSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // Each merchant's last event sequence. The row stays locked until the commit on PostgreSQL, so one merchant's
        // events commit in sequence order and a reader following the sequence never skips one committed late.
        try await db.create(table: "event_sequences")
            .column("merchant_id", type: .text, .primaryKey(autoIncrement: false))
            .column("last", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        // The order has no foreign key: like the push log, an event outlives the order's row.
        try await db.create(table: "events")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("sequence", type: .bigint, .notNull)
            .column("type", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("order_type_identifier", type: .text)
            .column("order_identifier", type: .text)
            .column("data", type: .text, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        // The list and a delivery worker walk one merchant's sequence; a type filter its own range of it.
        try await db.create(index: "events_merchant_sequence").unique().on("events").column("merchant_id").column("sequence").run()
        try await db.create(index: "events_merchant_type").on("events").column("merchant_id").column("type").column("sequence").run()
        // Retention deletes by age.
        try await db.create(index: "events_created").on("events").column("created_at").run()
        // When a carrier event was first finished unmatched: it is reported once, however often it is set back to
        // pending and finished unmatched again.
        try await db.alter(table: "carrier_events").column("unmatched_at", type: .bigint).run()
    }
}
