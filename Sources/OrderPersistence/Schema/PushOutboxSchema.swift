import SQLKit

/// Schema version 2: the durable push outbox and the per-order push log.
enum PushOutboxSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // APNs token authentication per order type (JSON of APNsTokenConfig); NULL pushes with the certificate.
        try await db.alter(table: "order_types").column("apns_token", type: .text).run()

        // One job per (order type, push token): a push tells the device to check all its orders of the type, so
        // further changes while a job waits coalesce into it. `generation` counts those changes, so a change that
        // lands while the job is being sent makes it go out again instead of being lost.
        try await db.create(table: "push_jobs")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("order_type_identifier", type: .text, .notNull)
            .column("push_token", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("state", type: .text, .notNull)
            .column("generation", type: .bigint, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("enqueued_at", type: .bigint, .notNull)
            .column("available_at", type: .bigint, .notNull)
            .column("lease_owner", type: .text)
            .column("lease_until", type: .bigint)
            .column("last_error", type: .text)
            .run()
        try await db.create(index: "push_jobs_token").unique().on("push_jobs")
            .column("order_type_identifier").column("push_token").run()
        try await db.create(index: "push_jobs_due").on("push_jobs").column("state").column("available_at").run()

        try await db.create(table: "push_log")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("order_type_identifier", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("token_suffix", type: .text, .notNull)
            .column("attempt", type: .bigint, .notNull)
            .column("status", type: .bigint)
            .column("reason", type: .text)
            .column("apns_id", type: .text)
            .column("outcome", type: .text, .notNull)
            .column("at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "push_log_order").on("push_log")
            .column("order_type_identifier").column("order_identifier").column("id").run()
    }
}
