import SQLKit

/// Schema version 4: dashboard sign-in sessions, shared by every instance on the same database.
enum DashboardSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // Only the SHA-256 of a session id is stored: a copy of the table signs nobody in.
        try await db.create(table: "dashboard_sessions")
            .column("id_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        // Retention deletes expired sessions by this index.
        try await db.create(index: "dashboard_sessions_expires").on("dashboard_sessions").column("expires_at").run()
    }
}
