import SQLKit

/// Schema version 22: the merchants' insight roll-ups (issue #32), hourly and daily counts per order type and
/// ``InsightMetric``, incremented in each cause's transaction and filled here from what the tables already hold.
enum InsightSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // Bucket before order type: a merchant's page, of all its order types or one, is one range of the key.
        try await db.create(table: "insight_counts")
            .column("merchant_id", type: .text, .notNull)
            .column("order_type_identifier", type: .text, .notNull)
            .column("granularity", type: .text, .notNull)
            .column("bucket_start", type: .bigint, .notNull)
            .column("metric", type: .text, .notNull)
            .column("count", type: .bigint, .notNull)
            .primaryKey("merchant_id", "granularity", "bucket_start", "order_type_identifier", "metric")
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await backfill(db)
    }

    /// The sources of each metric in the tables: orders by their creation, current registrations by their date (the
    /// registrations deleted before this version are not known, so active registrations are exact from now on and
    /// only approximate before), the event log's wallet additions, removals and failed pushes (as far back as its
    /// retention keeps them), the push log's deliveries and the activity's package fetches.
    static let sources: [(metric: InsightMetric, table: String, time: String, condition: String)] = [
        (.ordersCreated, "orders", "created_at", "1 = 1"),
        (.registrationChange, "registrations", "registered_at", "1 = 1"),
        (.ordersAddedToWallet, "events", "created_at", "s.type = 'order.wallet_added'"),
        (.removals, "events", "created_at", "s.type = 'order.wallet_removed'"),
        (.pushesFailed, "events", "created_at", "s.type = 'push.failed'"),
        (.pushesDelivered, "push_log", "at", "s.outcome = 'delivered'"),
        (.packageFetches, "order_activity", "at", "s.kind = 'fetched'"),
    ]

    /// Counts what the tables hold into `insight_counts`, which must be empty: one grouped insert per metric and
    /// granularity.
    static func backfill(_ db: any SQLDatabase) async throws {
        for source in sources {
            for granularity in InsightGranularity.allCases {
                let size = granularity.milliseconds
                // The time is positive, so `%` (truncating in both databases) floors it to the bucket.
                let bucket = "s.\(source.time) - s.\(source.time) % \(size)"
                try await db.raw(
                    """
                    INSERT INTO insight_counts (merchant_id, order_type_identifier, granularity, bucket_start, metric, count)
                    SELECT t.merchant_id, s.order_type_identifier, \(bind: granularity.rawValue), \(unsafeRaw: bucket), \(bind: source.metric.rawValue), COUNT(*)
                    FROM \(ident: source.table) s JOIN order_types t ON t.order_type_identifier = s.order_type_identifier
                    WHERE \(unsafeRaw: source.condition)
                    GROUP BY t.merchant_id, s.order_type_identifier, \(unsafeRaw: bucket)
                    """
                ).run()
            }
        }
    }
}
