import SQLKit

/// Schema version 19: carrier tracking. The merchants' connections to tracking aggregators, the inbox of verified
/// webhook events that a worker applies (durable and leased like the push outbox), and the index from tracking numbers
/// to the fulfillments that carry them.
enum CarrierSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // The signing secret is sealed with the master key (SecretColumn.all); ShipEngine signs with published keys.
        try await db.create(table: "carrier_connections")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("provider", type: .text, .notNull)
            .column("secret", type: .blob)
            .column("jwks_url", type: .text)
            .column("status_map", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "carrier_connections_merchant").on("carrier_connections").column("merchant_id").column("created_at").run()

        // The merchant is the connection's, copied so that lookups by merchant need no join. The matched order has no
        // foreign key: the event is the carrier's history and outlives the order's row, as the push log does.
        try await db.create(table: "carrier_events")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("connection_id", type: .text, .notNull)
            .column("merchant_id", type: .text, .notNull)
            .column("idempotency_key", type: .text, .notNull)
            .column("provider", type: .text, .notNull)
            .column("tracking_number", type: .text, .notNull)
            .column("carrier", type: .text)
            .column("order_reference", type: .text)
            .column("occurred_at", type: .bigint, .notNull)
            .column("event", type: .blob, .notNull)
            .column("state", type: .text, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("claimed_until", type: .bigint)
            .column("received_at", type: .bigint, .notNull)
            .column("applied_at", type: .bigint)
            .column("outcome", type: .text)
            .column("order_type_identifier", type: .text)
            .column("order_identifier", type: .text)
            .column("fulfillment_identifier", type: .text)
            .foreignKey(["connection_id"], references: "carrier_connections", ["id"], onDelete: .cascade)
            .run()
        // Recognises a redelivery; also what deleting a connection finds its events by.
        try await db.create(index: "carrier_events_key").unique().on("carrier_events").column("connection_id").column("idempotency_key").run()
        // Claims read pending events in id order without sorting.
        try await db.create(index: "carrier_events_due").on("carrier_events").column("state").column("id").run()
        // A fulfillment that gets a tracking number finds the events that waited for it.
        try await db.create(index: "carrier_events_tracking").on("carrier_events")
            .column("merchant_id").column("tracking_number").column("state").run()
        // The dashboard's newest events.
        try await db.create(index: "carrier_events_merchant").on("carrier_events").column("merchant_id").column("id").run()

        // Written with the order, so an order's rows go with it (and with its order type and merchant).
        try await db.create(table: "fulfillment_tracking")
            .column("order_type_identifier", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("fulfillment_identifier", type: .text, .notNull)
            .column("merchant_id", type: .text, .notNull)
            .column("tracking_number", type: .text, .notNull)
            .column("carrier", type: .text)
            .column("last_scan_at", type: .bigint)
            .primaryKey("order_type_identifier", "order_identifier", "fulfillment_identifier")
            .foreignKey(
                ["order_type_identifier", "order_identifier"], references: "orders", ["order_type_identifier", "order_identifier"],
                onDelete: .cascade
            )
            .run()
        try await db.create(index: "fulfillment_tracking_number").on("fulfillment_tracking").column("merchant_id").column("tracking_number").run()
    }
}
