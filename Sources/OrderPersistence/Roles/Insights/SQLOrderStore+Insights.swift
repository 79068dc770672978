import Foundation
import SQLKit

/// The roll-up increments one write transaction makes, kept by order type, metric and hour until its last statement
/// writes them (``SQLOrderStore/recordInsights(_:_:)``).
struct InsightTally: Sendable {
    struct Key: Hashable, Comparable {
        var orderTypeIdentifier: String
        var granularity: InsightGranularity
        var bucketStart: Int64
        var metric: InsightMetric

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.orderTypeIdentifier, lhs.granularity.rawValue, lhs.bucketStart, lhs.metric.rawValue)
                < (rhs.orderTypeIdentifier, rhs.granularity.rawValue, rhs.bucketStart, rhs.metric.rawValue)
        }
    }

    private(set) var counts: [Key: Int64] = [:]

    /// Counts `count` of `metric` for an order of the type at `date`, in its hour and in its day.
    mutating func add(_ metric: InsightMetric, _ orderTypeIdentifier: String, at date: Date, _ count: Int64 = 1) {
        let milliseconds = date.millisecondsSince1970
        for granularity in InsightGranularity.allCases {
            let key = Key(
                orderTypeIdentifier: orderTypeIdentifier, granularity: granularity, bucketStart: granularity.bucketStart(milliseconds), metric: metric
            )
            counts[key, default: 0] += count
        }
    }

    /// Counts the events that are insights: wallet additions, removals and failed pushes, at the events' time.
    mutating func add(_ events: [NewEvent], at date: Date) {
        for event in events {
            guard let order = event.order else { continue }
            switch event.type {
            case .orderWalletAdded: add(.ordersAddedToWallet, order.orderTypeIdentifier, at: date)
            case .orderWalletRemoved: add(.removals, order.orderTypeIdentifier, at: date)
            case .pushFailed: add(.pushesFailed, order.orderTypeIdentifier, at: date)
            case .orderCreated, .orderUpdated, .fulfillmentDelivered, .fulfillmentIssue, .carrierEventUnmatched: continue
            }
        }
    }

    mutating func merge(_ other: InsightTally) {
        counts.merge(other.counts, uniquingKeysWith: +)
    }
}

extension SQLOrderStore {
    /// Adds a transaction's increments to `insight_counts`, as its last statement: one upsert (per 500 rows) for every
    /// metric and bucket it touched, the merchant taken from the order type.
    ///
    /// On PostgreSQL the rows stay locked until the commit: taken last, after the event sequences, and in one order
    /// (order type, granularity, bucket, metric) by every transaction, they never make two wait on each other crosswise.
    static func recordInsights(_ db: any SQLDatabase, _ tally: InsightTally) async throws {
        for chunk in insightChunks(tally) { try await db.raw(insightUpsert(chunk)).run() }
    }

    /// The tally's counts in key order, ``statementChunk`` at a time.
    static func insightChunks(_ tally: InsightTally) -> [ArraySlice<(key: InsightTally.Key, value: Int64)>] {
        tally.counts.sorted(by: { $0.key < $1.key }).chunked(into: statementChunk)
    }

    /// The upsert of one chunk of counts, in key order.
    static func insightUpsert(_ chunk: ArraySlice<(key: InsightTally.Key, value: Int64)>) -> SQLQueryString {
        let rows = SQLBoundRows(
            .text(chunk.map(\.key.orderTypeIdentifier)), .text(chunk.map(\.key.granularity.rawValue)), .integer(chunk.map(\.key.bucketStart)),
            .text(chunk.map(\.key.metric.rawValue)), .integer(chunk.map(\.value)))
        // `WHERE 1 = 1` keeps SQLite from reading the upsert's ON as the join's.
        return """
            INSERT INTO insight_counts (merchant_id, order_type_identifier, granularity, bucket_start, metric, count)
            SELECT t.merchant_id, v.column1, v.column2, v.column3, v.column4, v.column5
            FROM \(rows) JOIN order_types t ON t.order_type_identifier = v.column1
            WHERE 1 = 1 ORDER BY v.column1, v.column2, v.column3, v.column4
            ON CONFLICT (merchant_id, granularity, bucket_start, order_type_identifier, metric)
            DO UPDATE SET count = insight_counts.count + excluded.count
            """
    }

    /// The merchant's counts in a range of buckets; see ``InsightStore/insightCounts(merchantID:orderTypeIdentifier:from:to:granularity:)``.
    public func insightCounts(merchantID: String, orderTypeIdentifier: String?, from: Date, to: Date, granularity: InsightGranularity) async throws
        -> InsightCounts
    {
        let start = from.millisecondsSince1970
        let end = to.millisecondsSince1970
        let type: SQLQueryString = orderTypeIdentifier.map { " AND order_type_identifier = \(bind: $0)" } ?? ""
        return try await read("read insights of merchant \(merchantID)", extent: .scan) { db in
            // One range of the primary key (merchant, granularity, bucket, …). PostgreSQL's SUM of bigints is a numeric.
            let rows = try await db.raw(
                """
                SELECT bucket_start, metric, CAST(SUM(count) AS BIGINT) AS total FROM insight_counts
                WHERE merchant_id = \(bind: merchantID) AND granularity = \(bind: granularity.rawValue)
                    AND bucket_start >= \(bind: start) AND bucket_start < \(bind: end)\(type)
                GROUP BY bucket_start, metric
                """
            ).all()
            var buckets: [Date: [InsightMetric: Int64]] = [:]
            for row in rows {
                // A metric a newer build writes is not this build's to show.
                guard let metric = InsightMetric(rawValue: try row.string("metric")) else { continue }
                let bucket = try row.date("bucket_start")
                buckets[bucket, default: [:]][metric] = try row.int64("total")
            }
            // The days before the range's day, then its day's hours before it: two ranges of the key, whatever the history
            // holds in hours.
            let day = InsightGranularity.day.bucketStart(start)
            let metric = InsightMetric.registrationChange.rawValue
            let before = try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) AS total FROM (
                    SELECT count FROM insight_counts WHERE merchant_id = \(bind: merchantID) AND granularity = 'day'
                        AND bucket_start < \(bind: day) AND metric = \(bind: metric)\(type)
                    UNION ALL
                    SELECT count FROM insight_counts WHERE merchant_id = \(bind: merchantID) AND granularity = 'hour'
                        AND bucket_start >= \(bind: day) AND bucket_start < \(bind: start) AND metric = \(bind: metric)\(type)) AS deltas
                """
            ).first(decodingColumn: "total", as: Int64.self)
            return InsightCounts(buckets: buckets, registrationsBefore: before ?? 0)
        }
    }

    /// Deletes hourly roll-ups before `date`; see ``RetentionStore/deleteHourlyInsights(before:)``.
    public func deleteHourlyInsights(before date: Date) async throws -> Int {
        try await deleteOldest(
            from: "insight_counts", key: ["merchant_id", "granularity", "bucket_start", "order_type_identifier", "metric"], time: "bucket_start",
            order: "bucket_start", filter: "granularity = 'hour'", before: date, operation: "delete old hourly insights")
    }
}
