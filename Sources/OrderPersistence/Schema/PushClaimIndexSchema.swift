import SQLKit

/// Schema version 11: the due-jobs index also orders by id, so a claim (`ORDER BY available_at, id LIMIT n`) reads the
/// first n index entries instead of sorting every pending job; on PostgreSQL, push jobs leave room in their pages.
///
/// SQLite appends the rowid to every index, so there the old index already had this order; on PostgreSQL each claim of
/// a 100,000-device fan-out sorted the whole queue (31 ms a claim, most of the fan-out's database time).
enum PushClaimIndexSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.drop(index: "push_jobs_due").run()
        try await db.create(index: "push_jobs_due").on("push_jobs").column("state").column("available_at").column("id").run()
        guard db.dialect.name == "postgresql" else { return }
        // A claim, a lease renewal and a retry change no indexed column: with room left in the row's page PostgreSQL
        // updates it in place (a heap-only tuple) instead of adding an entry to each of the three indexes.
        try await db.raw("ALTER TABLE push_jobs SET (fillfactor = 50)").run()
    }
}
