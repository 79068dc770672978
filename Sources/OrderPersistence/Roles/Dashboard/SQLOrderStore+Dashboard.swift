import Foundation
import SQLKit

extension SQLOrderStore {
    /// Stores a new dashboard session.
    public func createDashboardSession(_ session: DashboardSessionRecord) async throws {
        try await write("create a dashboard session") { db in
            try await db.insert(into: "dashboard_sessions")
                .columns("id_hash", "merchant_id", "api_key_id", "api_key_hash", "created_at", "expires_at")
                .values(
                    session.idHash, session.merchantID, session.apiKeyID, session.apiKeyHash, session.createdAt.millisecondsSince1970,
                    session.expiresAt.millisecondsSince1970
                )
                .run()
        }
    }

    /// The dashboard session whose id has this SHA-256, expired or not, while the key that opened it is unrevoked and
    /// holds the same secret: one lookup per request, so a revocation or rotation ends the session at once on every
    /// instance.
    public func dashboardSession(idHash: String) async throws -> LiveDashboardSession? {
        try await read("read a dashboard session") { db in
            try await db.raw(
                """
                SELECT s.id_hash, s.merchant_id, s.api_key_id, s.api_key_hash, s.created_at, s.expires_at, k.expires_at AS key_expires_at \
                FROM dashboard_sessions s JOIN api_keys k ON k.key_hash = s.api_key_hash AND k.id = s.api_key_id \
                WHERE s.id_hash = \(bind: idHash) AND k.revoked_at IS NULL
                """
            )
            .first()
            .map {
                LiveDashboardSession(
                    record: DashboardSessionRecord(
                        idHash: try $0.string("id_hash"), merchantID: try $0.string("merchant_id"), apiKeyID: try $0.string("api_key_id"),
                        apiKeyHash: try $0.string("api_key_hash"), createdAt: try $0.date("created_at"), expiresAt: try $0.date("expires_at")),
                    apiKeyExpiresAt: try $0.decodeNil(column: "key_expires_at") ? nil : try $0.date("key_expires_at"))
            }
        }
    }

    /// Deletes a dashboard session; `false` if there was none.
    @discardableResult
    public func deleteDashboardSession(idHash: String) async throws -> Bool {
        try await write("delete a dashboard session") { db in
            try await db.delete(from: "dashboard_sessions").where("id_hash", .equal, idHash).returning("id_hash").first() != nil
        }
    }

    /// Deletes every dashboard session of the merchant ("sign out everywhere"); returns the number deleted.
    public func deleteDashboardSessions(merchantID: String) async throws -> Int {
        try await write("delete the dashboard sessions of merchant \(merchantID)") { db in
            try await db.delete(from: "dashboard_sessions").where("merchant_id", .equal, merchantID).returning("id_hash").all().count
        }
    }

    /// Deletes the dashboard sessions that expired before `date`; returns the number deleted.
    public func deleteDashboardSessions(expiredBefore date: Date) async throws -> Int {
        try await write("delete expired dashboard sessions") { db in
            try await db.delete(from: "dashboard_sessions")
                .where("expires_at", .lessThan, date.millisecondsSince1970)
                .returning("id_hash")
                .all()
                .count
        }
    }

    /// A merchant's orders newest first (keyset on the immutable creation sequence, walked down the same index as
    /// ``listOrders(merchantID:orderTypeIdentifier:orderNumber:status:updatedSince:after:limit:)``, or its twin with the status,
    /// with the same cursor format).
    ///
    /// - Throws: ``OrderStoreError/invalidArgument(name:reason:)`` when `limit` is not 1 to ``maximumPageSize``,
    ///   ``OrderStoreError/invalidCursor(_:)`` for a cursor this store did not issue.
    public func recentOrders(
        merchantID: String, orderTypeIdentifier: String?, status: String?, search: String?, before cursor: String?, limit: Int
    ) async throws -> OrderPage {
        guard (1...Self.maximumPageSize).contains(limit) else {
            throw OrderStoreError.invalidArgument(name: "limit", reason: "\(limit) is not between 1 and \(Self.maximumPageSize)")
        }
        let beforeSequence = try cursor.map(ListCursor.orders.decode)
        return try await read("list recent orders of merchant \(merchantID)", extent: .scan) { db in
            let query = Self.recentOrdersQuery(
                db, merchantID: merchantID, orderTypeIdentifier: orderTypeIdentifier, status: status, search: search, before: beforeSequence,
                limit: limit + 1)
            let rows = try await query.all()
            let page = rows.prefix(limit)
            let nextCursor = try rows.count > limit ? page.last.map { ListCursor.orders.encode(try $0.int64("created_sequence")) } : nil
            return OrderPage(orders: try page.map(Self.order(from:)), nextCursor: nextCursor)
        }
    }

    /// The query of ``recentOrders(merchantID:orderTypeIdentifier:status:search:before:limit:)``, for it and for
    /// checking its plans.
    static func recentOrdersQuery(
        _ db: any SQLDatabase, merchantID: String, orderTypeIdentifier: String?, status: String?, search: String?, before sequence: Int64?,
        limit: Int
    ) -> SQLSelectBuilder {
        let query = db.select().columns(orderColumns).from("orders")
        guard let search else {
            query.where("merchant_id", .equal, merchantID)
            if let orderTypeIdentifier { query.where("order_type_identifier", .equal, orderTypeIdentifier) }
            if let status { query.where("status", .equal, status) }
            if let sequence { query.where("created_sequence", .lessThan, sequence) }
            return query.orderBy("created_sequence", .descending).limit(limit)
        }
        // The merchant in each branch: each is then one lookup in its own index (merchant and order number, merchant
        // and identifier), which both databases combine, rather than a walk of all the merchant's orders.
        let merchant = SQLBinaryExpression(SQLColumn("merchant_id"), .equal, SQLBind(merchantID))
        query.where(
            SQLGroupExpression(
                SQLBinaryExpression(
                    SQLBinaryExpression(merchant, .and, SQLBinaryExpression(SQLColumn("order_number"), .equal, SQLBind(search))), .or,
                    SQLBinaryExpression(merchant, .and, SQLBinaryExpression(SQLColumn("order_identifier"), .equal, SQLBind(search))))))
        // Status and cursor only filter the few orders found: as expressions (`status || ''`, `created_sequence + 0`)
        // no index can serve them, so SQLite without statistics does not walk the merchant's orders by them instead.
        if let status { query.where(SQLQueryString("\(ident: "status") || '' = \(bind: status)")) }
        if let orderTypeIdentifier { query.where(SQLQueryString("\(ident: "order_type_identifier") || '' = \(bind: orderTypeIdentifier)")) }
        if let sequence { query.where(SQLQueryString("\(ident: "created_sequence") + 0 < \(bind: sequence)")) }
        return query.orderBy("created_sequence", .descending).limit(limit)
    }

    /// The change sequence of the merchant's latest order change (0 before any), from the `(merchant_id,
    /// change_sequence)` index.
    public func latestChangeSequence(merchantID: String) async throws -> Int64 {
        try await read("read the latest change of merchant \(merchantID)") { db in
            try await db.select()
                .column(SQLFunction("COALESCE", args: SQLFunction("MAX", args: SQLColumn("change_sequence")), SQLLiteral.numeric("0")), as: "latest")
                .from("orders").where("merchant_id", .equal, merchantID)
                .first(decodingColumn: "latest", as: Int64.self) ?? 0
        }
    }

    /// The id of the order's latest push log entry (0 before any), from the push log's order index.
    public func latestPushLogID(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int64 {
        try await read("read the latest push of \(orderTypeIdentifier)/\(orderIdentifier)") { db in
            try await db.select()
                .column(SQLFunction("COALESCE", args: SQLFunction("MAX", args: SQLColumn("id")), SQLLiteral.numeric("0")), as: "latest")
                .from("push_log")
                .where("order_type_identifier", .equal, orderTypeIdentifier).where("order_identifier", .equal, orderIdentifier)
                .first(decodingColumn: "latest", as: Int64.self) ?? 0
        }
    }

    /// The id of the latest push log entry of any of these orders of the merchant (0 before any), in one query over the
    /// push log's order index; keys of other merchants' orders count for nothing.
    public func latestPushLogID(merchantID: String, of orders: [OrderKey]) async throws -> Int64 {
        guard !orders.isEmpty else { return 0 }
        return try await read("read the latest push of \(orders.count) orders") { db in
            try await Self.latestPushLogQuery(db, merchantID: merchantID, of: orders).first(decodingColumn: "latest", as: Int64.self) ?? 0
        }
    }

    /// The query of ``latestPushLogID(merchantID:of:)``, for it and for checking its plan.
    static func latestPushLogQuery(_ db: any SQLDatabase, merchantID: String, of orders: [OrderKey]) -> SQLSelectBuilder {
        let matches = orders.prefix(Self.maximumPageSize).map { key in
            SQLBinaryExpression(
                SQLBinaryExpression(SQLColumn("order_type_identifier", table: "push_log"), .equal, SQLBind(key.orderTypeIdentifier)), .and,
                SQLBinaryExpression(SQLColumn("order_identifier", table: "push_log"), .equal, SQLBind(key.orderIdentifier)))
        }
        return db.select()
            .column(
                SQLFunction("COALESCE", args: SQLFunction("MAX", args: SQLColumn("id", table: "push_log")), SQLLiteral.numeric("0")), as: "latest"
            )
            .from("push_log")
            .join(
                "orders", method: SQLJoinMethod.inner,
                on: SQLBinaryExpression(
                    SQLBinaryExpression(
                        SQLColumn("order_type_identifier", table: "orders"), .equal, SQLColumn("order_type_identifier", table: "push_log")),
                    .and,
                    SQLBinaryExpression(SQLColumn("order_identifier", table: "orders"), .equal, SQLColumn("order_identifier", table: "push_log")))
            )
            // The merchant as an expression no index serves: otherwise SQLite without statistics walks all the
            // merchant's orders (100,000 took 50 ms a page) to probe the push log, rather than looking up the listed
            // rows' push log entries and then each one's order by its key.
            .where(SQLQueryString("\(ident: "orders").\(ident: "merchant_id") || '' = \(bind: merchantID)"))
            .where(SQLGroupExpression(SQLList(matches, separator: SQLRaw(" OR "))))
    }

    /// How many devices are registered for each of these orders, in one query over the registrations' order index.
    public func registrationCounts(of orders: [OrderKey]) async throws -> [OrderKey: Int] {
        guard !orders.isEmpty else { return [:] }
        return try await read("count registrations of \(orders.count) orders", extent: .scan) { db in
            var counts: [OrderKey: Int] = [:]
            // Two binds per order: chunks stay far below SQLite's and PostgreSQL's bind limits.
            for chunk in orders.chunked(into: 200) {
                for row in try await Self.registrationCountsQuery(db, of: chunk).all() {
                    let key = OrderKey(
                        orderTypeIdentifier: try row.string("order_type_identifier"), orderIdentifier: try row.string("order_identifier"))
                    counts[key] = try row.int("devices")
                }
            }
            return counts
        }
    }

    /// The query of ``registrationCounts(of:)`` for one chunk of orders, for it and for checking its plan.
    static func registrationCountsQuery(_ db: any SQLDatabase, of orders: some Collection<OrderKey>) -> SQLSelectBuilder {
        let matches = orders.map { key in
            SQLBinaryExpression(
                SQLBinaryExpression(SQLColumn("order_type_identifier"), .equal, SQLBind(key.orderTypeIdentifier)), .and,
                SQLBinaryExpression(SQLColumn("order_identifier"), .equal, SQLBind(key.orderIdentifier)))
        }
        return db.select()
            .column("order_type_identifier").column("order_identifier").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "devices")
            .from("registrations")
            .where(SQLGroupExpression(SQLList(matches, separator: SQLRaw(" OR "))))
            .groupBy("order_type_identifier").groupBy("order_identifier")
    }
}
