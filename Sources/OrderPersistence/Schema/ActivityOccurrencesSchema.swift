import SQLKit

/// Schema version 27: an activity entry may stand for several package fetches. The fetch recorder writes the fetches of
/// one version answered alike within one write as one entry with their number, so a fan-out to many devices adds a
/// row a second instead of one per device. `NULL` (every entry before this version) means one.
enum ActivityOccurrencesSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "order_activity").column("occurrences", type: .bigint).run()
    }
}
