import SQLKit

/// Schema version 23: a platform's webhook endpoints, each sent every merchant's events (issue #32). The platform
/// endpoint keeps the URL, event types and secrets; each merchant gets a child row in `webhook_endpoints` that follows
/// that merchant's event sequence with its own cursor, lease and failure state, so the worker serves a child as it
/// serves a merchant's own endpoint and one merchant's failing events never hold back another's.
enum PlatformWebhookSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // The secrets are sealed with the master key (SecretColumn.all) and copied, sealed again, to each child.
        try await db.create(table: "platform_webhook_endpoints")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("url", type: .text, .notNull)
            .column("events", type: .text, .notNull)
            .column("description", type: .text)
            .column("secret", type: .blob, .notNull)
            .column("previous_secret", type: .blob)
            .column("previous_secret_until", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .run()
        // NULL for a merchant's own endpoint. Deleting the platform endpoint deletes its children and their logs.
        try await db.raw(
            "ALTER TABLE webhook_endpoints ADD COLUMN platform_endpoint_id TEXT REFERENCES platform_webhook_endpoints (id) ON DELETE CASCADE"
        ).run()
        try await db.create(index: "webhook_endpoints_platform").on("webhook_endpoints").column("platform_endpoint_id").column("merchant_id").run()
    }
}
