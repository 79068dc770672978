import SQLKit

/// Schema version 16: a dashboard session belongs to the API key that opened it, by the key's id and the hash of the
/// secret it was opened with. Revoking the key or rotating its secret ends the session (audit M11). Sessions opened
/// before this version know no key: they end here, and their merchants sign in again.
enum SessionKeySchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.delete(from: "dashboard_sessions").run()
        try await db.alter(table: "dashboard_sessions").column("api_key_id", type: .text).run()
        try await db.alter(table: "dashboard_sessions").column("api_key_hash", type: .text).run()
        // Revoking or rotating a key deletes its sessions by this index.
        try await db.create(index: "dashboard_sessions_api_key").on("dashboard_sessions").column("api_key_id").run()
    }
}
