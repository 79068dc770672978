import Foundation
import OrderPersistence
import SQLKit

/// Inserts of rows generated inside the database, so that load tests fill a store with a million rows in seconds
/// instead of minutes of per-row binds. They write through the store's one raw door,
/// ``OrderPersistence/SQLOrderStore/withRawWriteTransaction(_:_:)``, and stay here with the benchmarks: the store's
/// API keeps only what the server and its tools use.
extension SQLOrderStore {
    /// Inserts orders `indices` in one transaction. Order `i` gets identifier `orderIdentifierPrefix + i`,
    /// authentication token `authenticationTokenPrefix + i`, order number `orderNumberPrefix + i` (none without a
    /// prefix), version 1 and the next change sequence in index order.
    /// Fails if the order type is not `merchantID`'s or an identifier already exists.
    func insertGeneratedOrders(
        _ indices: Range<Int>, merchantID: String, orderTypeIdentifier: String, orderIdentifierPrefix: String,
        authenticationTokenPrefix: String, document: [UInt8], status: String?, orderNumberPrefix: String? = nil
    ) async throws {
        guard let first = indices.first, let last = indices.last else { return }
        guard let orderType = try await orderType(orderTypeIdentifier) else {
            throw OrderStoreError.orderTypeNotFound(orderTypeIdentifier: orderTypeIdentifier)
        }
        guard orderType.merchantID == merchantID else {
            throw OrderStoreError.orderTypeOwnedByAnotherMerchant(orderTypeIdentifier: orderTypeIdentifier)
        }
        try await withRawWriteTransaction("insert generated orders \(indices)") { transaction in
            let count = Int64(indices.count)
            // Row i gets sequence offset + i, consecutive after the counter's previous value.
            let offset = try await transaction.takeChangeSequences(count) - count + 1 - Int64(first)
            let now = transaction.nowMilliseconds
            try await transaction.database.raw(
                """
                WITH RECURSIVE seq(i) AS (SELECT \(bind: first) UNION ALL SELECT i + 1 FROM seq WHERE i < \(bind: last)) \
                INSERT INTO orders (order_type_identifier, order_identifier, merchant_id, authentication_token, document, status, \
                created_at, updated_at, version, change_sequence, created_sequence, order_number) \
                SELECT \(bind: orderTypeIdentifier), \(bind: orderIdentifierPrefix) || i, \(bind: merchantID), \
                \(bind: authenticationTokenPrefix) || i, \(bind: Data(document)), \(bind: status), \(bind: now), \(bind: now), \
                1, \(bind: offset) + i, \(bind: offset) + i, \(bind: orderNumberPrefix) || i FROM seq
                """
            ).run()
        }
    }

    /// Inserts registrations `indices` in one transaction. Registration `j` registers device
    /// `deviceIdentifierPrefix + j / ordersPerDevice` with push token `pushTokenPrefix + j / ordersPerDevice` for
    /// order `orderIdentifierPrefix + j % orderCount`.
    func insertGeneratedRegistrations(
        _ indices: Range<Int>, orderTypeIdentifier: String, orderIdentifierPrefix: String, orderCount: Int,
        deviceIdentifierPrefix: String, pushTokenPrefix: String, ordersPerDevice: Int
    ) async throws {
        guard let first = indices.first, let last = indices.last else { return }
        try await withRawWriteTransaction("insert generated registrations \(indices)") { transaction in
            try await transaction.database.raw(
                """
                WITH RECURSIVE seq(i) AS (SELECT \(bind: first) UNION ALL SELECT i + 1 FROM seq WHERE i < \(bind: last)) \
                INSERT INTO registrations \
                (device_library_identifier, order_type_identifier, order_identifier, push_token, registered_at) \
                SELECT \(bind: deviceIdentifierPrefix) || (i / \(bind: ordersPerDevice)), \(bind: orderTypeIdentifier), \
                \(bind: orderIdentifierPrefix) || (i % \(bind: orderCount)), \
                \(bind: pushTokenPrefix) || (i / \(bind: ordersPerDevice)), \(bind: transaction.nowMilliseconds) FROM seq
                """
            ).run()
        }
    }

    /// Inserts a year's worth of insight roll-ups for one order type in one transaction, as `orders` orders spread over
    /// `hours` hours (a little more or less from hour to hour) would make them: an hourly row of every metric from
    /// `start` (a whole UTC hour, in milliseconds), then the daily rows summing them. Returns the orders created.
    public func insertGeneratedInsightCounts(merchantID: String, orderTypeIdentifier: String, start: Int64, hours: Int, orders: Int)
        async throws -> Int64
    {
        // The remainder one more in the first hours; the ±2 from hour to hour cancels out over a multiple of 5 hours.
        let ordersPerHour = orders / hours
        let extraHours = orders % hours
        return try await withRawWriteTransaction("insert generated insight counts of \(orderTypeIdentifier)") { transaction in
            // created = ordersPerHour - 2 … + 2; three in four reach Wallet, one in twenty leaves it; three pushes and four
            // fetches an order; a failed push one hour in seven.
            let created: SQLQueryString = "(\(bind: ordersPerHour) - 2 + (i * 7) % 5 + CASE WHEN i < \(bind: extraHours) THEN 1 ELSE 0 END)"
            try await transaction.database.raw(
                """
                WITH RECURSIVE seq(i) AS (SELECT CAST(0 AS BIGINT) UNION ALL SELECT i + 1 FROM seq WHERE i < \(bind: hours - 1)) \
                INSERT INTO insight_counts (merchant_id, order_type_identifier, granularity, bucket_start, metric, count) \
                SELECT \(bind: merchantID), \(bind: orderTypeIdentifier), 'hour', \(bind: start) + i * 3600000, m.metric, \
                CASE m.metric WHEN 'orders_created' THEN \(created) WHEN 'wallet_added' THEN \(created) * 3 / 4 \
                WHEN 'wallet_removed' THEN \(created) / 20 WHEN 'registrations_delta' THEN \(created) * 3 / 4 - \(created) / 20 \
                WHEN 'pushes_delivered' THEN \(created) * 3 WHEN 'pushes_failed' THEN CASE WHEN i % 7 = 0 THEN 1 ELSE 0 END \
                ELSE \(created) * 4 END \
                FROM seq CROSS JOIN (SELECT 'orders_created' AS metric UNION ALL SELECT 'wallet_added' UNION ALL SELECT 'wallet_removed' \
                UNION ALL SELECT 'registrations_delta' UNION ALL SELECT 'pushes_delivered' UNION ALL SELECT 'pushes_failed' \
                UNION ALL SELECT 'package_fetches') m
                """
            ).run()
            try await transaction.database.raw(
                """
                INSERT INTO insight_counts (merchant_id, order_type_identifier, granularity, bucket_start, metric, count) \
                SELECT merchant_id, order_type_identifier, 'day', bucket_start - bucket_start % 86400000, metric, SUM(count) \
                FROM insight_counts WHERE merchant_id = \(bind: merchantID) AND order_type_identifier = \(bind: orderTypeIdentifier) \
                AND granularity = 'hour' GROUP BY merchant_id, order_type_identifier, bucket_start - bucket_start % 86400000, metric
                """
            ).run()
            return try await transaction.database.raw(
                """
                SELECT CAST(SUM(count) AS BIGINT) AS orders FROM insight_counts WHERE merchant_id = \(bind: merchantID) \
                AND order_type_identifier = \(bind: orderTypeIdentifier) AND granularity = 'day' AND metric = 'orders_created'
                """
            ).first(decodingColumn: "orders", as: Int64.self) ?? 0
        }
    }

    /// Refreshes PostgreSQL's planner statistics after a bulk insert, as autovacuum soon would in production; until
    /// then the planner guesses from the empty tables. SQLite keeps no statistics unless asked, in production as here,
    /// so it is left alone.
    public func refreshStatistics() async throws {
        try await withRawWriteTransaction("refresh planner statistics") { transaction in
            guard transaction.database.dialect.name == "postgresql" else { return }
            // The store's schema only: a bare ANALYZE in a transaction locks every table of every schema to its end,
            // more than PostgreSQL's lock table holds in a database that other stores (the tests') share.
            let tables = try await transaction.database.raw("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
                .all(decodingColumn: "tablename", as: String.self)
            try await transaction.database.raw("ANALYZE \(idents: tables, joinedBy: ", ")").run()
        }
    }

    /// Waits (at most `timeout`) until the listeners have read the change announcements queued so far, as a server has
    /// in steady state: a bulk insert announces each row, and a benchmark that starts while they are still being read
    /// measures that work and a cache that cannot keep what it reads meanwhile. Returns at once on SQLite, which
    /// announces nothing.
    public func waitForAnnouncementsToBeRead(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let backlog = try await withRawWriteTransaction("measure the notification backlog") { transaction -> Double in
                guard transaction.database.dialect.name == "postgresql" else { return 0 }
                return try await transaction.database.raw("SELECT pg_notification_queue_usage() AS usage")
                    .first(decodingColumn: "usage", as: Double.self) ?? 0
            }
            // The usage is counted in whole queue pages: zero leaves less than a page (about a hundred announcements).
            if backlog == 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
