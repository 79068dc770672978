import SQLKit

/// Schema version 25: the carrier inbox's claim index holds pending events only. Every applied event left its pending
/// entry in the old `(state, id)` index until a vacuum, and the inbox keeps applied events for the retention period: a
/// claim whose plan visits those entries (a bitmap scan, as PostgreSQL chose with statistics older than a burst of
/// events) grew with the inbox. The partial index is as small as the backlog.
enum CarrierClaimIndexSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.drop(index: "carrier_events_due").run()
        try await db.raw("CREATE INDEX carrier_events_due ON carrier_events (id) WHERE state = 'pending'").run()
    }
}
