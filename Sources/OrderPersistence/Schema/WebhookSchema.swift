import SQLKit

/// Schema version 21: merchants' webhook endpoints (issue #32) and their delivery log. Each endpoint follows its
/// merchant's event sequence with its own cursor; the worker claims an endpoint with a lease, as the push outbox and the
/// carrier inbox claim their rows, so one endpoint's events go out one at a time, in sequence order.
enum WebhookSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // The secrets are sealed with the master key (SecretColumn.all). `cursor` is the last sequence handled;
        // `claims` counts claims, so a worker whose lease ran out cannot finish what another claimed since.
        try await db.create(table: "webhook_endpoints")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("url", type: .text, .notNull)
            .column("events", type: .text, .notNull)
            .column("description", type: .text)
            .column("secret", type: .blob, .notNull)
            .column("previous_secret", type: .blob)
            .column("previous_secret_until", type: .bigint)
            .column("status", type: .text, .notNull)
            .column("disabled_reason", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("cursor", type: .bigint, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("failing_since", type: .bigint)
            .column("next_attempt_at", type: .bigint)
            .column("claimed_until", type: .bigint)
            .column("claims", type: .bigint, .notNull)
            .column("deliveries", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "webhook_endpoints_merchant").on("webhook_endpoints").column("merchant_id").column("created_at").run()
        // Claims look for enabled endpoints that are due.
        try await db.create(index: "webhook_endpoints_due").on("webhook_endpoints").column("status").column("next_attempt_at").run()

        // One row per event an endpoint was sent (its attempts counted on it), and one per resend. `number` orders an
        // endpoint's log, newest first, for the cursor of its list.
        try await db.create(table: "webhook_deliveries")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("endpoint_id", type: .text, .notNull)
            .column("number", type: .bigint, .notNull)
            .column("event_id", type: .text, .notNull)
            .column("event_type", type: .text, .notNull)
            .column("resend_of", type: .text)
            .column("status", type: .text, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("response_status", type: .bigint)
            .column("latency_ms", type: .bigint)
            .column("error", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .foreignKey(["endpoint_id"], references: "webhook_endpoints", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "webhook_deliveries_endpoint").unique().on("webhook_deliveries").column("endpoint_id").column("number").run()
        try await db.create(index: "webhook_deliveries_event").on("webhook_deliveries").column("endpoint_id").column("event_id").run()
    }
}
