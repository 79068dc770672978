import Foundation
import SQLKit

extension SQLOrderStore {
    /// Registers a device for pushes of an order, replacing its push token if it changed; a device new to the order
    /// is refused with ``RegistrationOutcome/limitReached(maximum:)`` when the order has `maximumPerOrder` already.
    ///
    /// Registering again refreshes ``Registration/registeredAt`` even for the same token: it proves the token valid
    /// after an APNs 410, so deletions for that 410 spare it. The order's row is locked first (PostgreSQL; SQLite has
    /// one writer), so registrations of one order take turns and the count before an insert is never stale, whichever
    /// instance runs them.
    ///
    /// A registration names the wallet link whose device token made it (`walletLinkID`), or none for the order's own
    /// token; registering again names the credential of that call.
    ///
    /// - Throws: ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)`` if the order does not exist,
    ///   ``OrderStoreError/walletLinkClosed(id:)`` if the link was revoked or expired.
    public func register(
        deviceLibraryIdentifier: String,
        pushToken: String,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        walletLinkID: String?,
        maximumPerOrder: Int?
    ) async throws -> RegistrationOutcome {
        try await write("register device \(deviceLibraryIdentifier) for \(orderTypeIdentifier)/\(orderIdentifier)") { db in
            let merchantID = try await lockOrder(db, type: orderTypeIdentifier, id: orderIdentifier)
            let now = self.now().millisecondsSince1970
            if let walletLinkID { try await lockLiveWalletLink(db, id: walletLinkID, now: now) }
            // The other devices: the cap counts them, and a device new to an order that has none adds it to a wallet.
            let registered =
                try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "devices")
                .from("registrations")
                .where("order_type_identifier", .equal, orderTypeIdentifier)
                .where("order_identifier", .equal, orderIdentifier)
                .where("device_library_identifier", .notEqual, deviceLibraryIdentifier)
                .first(decodingColumn: "devices", as: Int.self) ?? 0
            if let maximumPerOrder, registered >= maximumPerOrder { return .limitReached(maximum: maximumPerOrder) }
            // Insert-or-nothing first: race-free on engines that run writers concurrently.
            let inserted = try await db.insert(into: "registrations")
                .columns("device_library_identifier", "order_type_identifier", "order_identifier", "push_token", "registered_at", "wallet_link_id")
                .values(deviceLibraryIdentifier, orderTypeIdentifier, orderIdentifier, pushToken, now, walletLinkID)
                .ignoringConflicts(with: ["device_library_identifier", "order_type_identifier", "order_identifier"])
                .returning("push_token")
                .first()
            if inserted != nil {
                try await Self.insertActivity(
                    db, [Self.deviceActivity(.registered, deviceLibraryIdentifier, orderTypeIdentifier, orderIdentifier, now)])
                let date = Date(millisecondsSince1970: now)
                let order = OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
                var insights = InsightTally()
                insights.add(.registrationChange, orderTypeIdentifier, at: date)
                try await Self.appendEvents(
                    db, registered == 0 ? [Self.walletEvent(.orderWalletAdded, merchantID: merchantID, order: order)] : [], at: date,
                    insights: insights)
                return .created
            }
            let previousToken = try await db.select().column("push_token").from("registrations")
                .where("device_library_identifier", .equal, deviceLibraryIdentifier)
                .where("order_type_identifier", .equal, orderTypeIdentifier)
                .where("order_identifier", .equal, orderIdentifier)
                .first(decodingColumn: "push_token", as: String.self)
            // registered_at is refreshed even for the same token: a re-registration after an APNs 410
            // proves the token valid again, so deletions for that 410 must spare it.
            try await db.update("registrations")
                .set("push_token", to: pushToken)
                .set("registered_at", to: now)
                .set("wallet_link_id", to: walletLinkID)
                .where("device_library_identifier", .equal, deviceLibraryIdentifier)
                .where("order_type_identifier", .equal, orderTypeIdentifier)
                .where("order_identifier", .equal, orderIdentifier)
                .run()
            // Wallet registers again at will; only a new push token is news worth a transcript line.
            if previousToken != pushToken {
                try await Self.insertActivity(
                    db, [Self.deviceActivity(.registered, deviceLibraryIdentifier, orderTypeIdentifier, orderIdentifier, now)])
            }
            return .alreadyRegistered(pushTokenReplaced: previousToken != pushToken)
        }
    }

    /// Throws ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)`` unless the order exists, and
    /// holds its row until the transaction ends where concurrent writers could otherwise interleave; returns its merchant.
    private func lockOrder(_ db: any SQLDatabase, type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> String {
        let found = try await db.raw(
            """
            SELECT merchant_id FROM orders WHERE order_type_identifier = \(bind: orderTypeIdentifier) \
            AND order_identifier = \(bind: orderIdentifier)\(unsafeRaw: backend.rowLockClause)
            """
        ).first(decodingColumn: "merchant_id", as: String.self)
        guard let found else {
            throw OrderStoreError.orderNotFound(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        }
        return found
    }

    /// Throws ``OrderStoreError/walletLinkClosed(id:)`` unless the link is unrevoked and unexpired at `now`, and holds
    /// its row until the transaction ends: a revocation waits, then deletes what this transaction registers.
    private func lockLiveWalletLink(_ db: any SQLDatabase, id: String, now: Int64) async throws {
        let live = try await db.raw(
            """
            SELECT id FROM wallet_links WHERE id = \(bind: id) AND revoked_at IS NULL \
            AND expires_at > \(bind: now)\(unsafeRaw: backend.rowLockClause)
            """
        ).first()
        guard live != nil else { throw OrderStoreError.walletLinkClosed(id: id) }
    }

    /// Deletes the registrations `condition` selects, in the caller's transaction, and notes each in its order's
    /// activity as an unregistration; returns the number deleted, an `order.wallet_removed` event for each order left
    /// without registrations and the registrations' insight decrements, for the caller to append with its other events.
    func deleteRegistrations(_ db: any SQLDatabase, where condition: SQLQueryString, at date: Date) async throws
        -> (deleted: Int, events: [NewEvent], insights: InsightTally)
    {
        let deleted = try await db.raw(
            "DELETE FROM registrations WHERE " + condition + " RETURNING device_library_identifier, order_type_identifier, order_identifier"
        ).all()
        let entries = try deleted.map {
            Self.deviceActivity(
                .unregistered, try $0.string("device_library_identifier"), try $0.string("order_type_identifier"),
                try $0.string("order_identifier"), date.millisecondsSince1970)
        }
        for chunk in entries.chunked(into: Self.activityBatch) { try await Self.insertActivity(db, chunk) }
        let orders = Set(entries.map { OrderKey(orderTypeIdentifier: $0.orderTypeIdentifier, orderIdentifier: $0.orderIdentifier) })
        return (
            deleted.count, try await walletRemovedEvents(db, orders: orders), Self.registrationsRemoved(entries.map(\.orderTypeIdentifier), at: date)
        )
    }

    /// The insight decrements for deleted registrations of these order types (one entry per registration).
    static func registrationsRemoved(_ orderTypes: [String], at date: Date) -> InsightTally {
        var insights = InsightTally()
        for (type, count) in Dictionary(orderTypes.map { ($0, Int64(1)) }, uniquingKeysWith: +) {
            insights.add(.registrationChange, type, at: date, -count)
        }
        return insights
    }

    /// `order.wallet_removed` for each of `orders` (whose registrations the caller deleted) that has none left.
    ///
    /// The orders' rows are locked before the look (PostgreSQL), as a registration locks its order's first: a device
    /// registering meanwhile either committed before and is seen here, or waits for this transaction and then finds the
    /// order without registrations. (The same device registering again while its row is deleted here is a deadlock,
    /// which PostgreSQL breaks and the store retries.)
    func walletRemovedEvents(_ db: any SQLDatabase, orders: Set<OrderKey>) async throws -> [NewEvent] {
        var events: [NewEvent] = []
        for chunk in orders.sorted(by: { ($0.orderTypeIdentifier, $0.orderIdentifier) < ($1.orderTypeIdentifier, $1.orderIdentifier) })
            .chunked(into: Self.statementChunk)
        {
            let keys = Self.keyList(Array(chunk))
            if !backend.rowLockClause.isEmpty {
                try await db.raw(
                    """
                    SELECT order_identifier FROM orders WHERE \(keys)
                    ORDER BY order_type_identifier, order_identifier\(unsafeRaw: backend.rowLockClause)
                    """
                ).run()
            }
            let emptied = try await db.raw(
                """
                SELECT merchant_id, order_type_identifier, order_identifier FROM orders o
                WHERE \(keys) AND NOT EXISTS (
                    SELECT 1 FROM registrations r
                    WHERE r.order_type_identifier = o.order_type_identifier AND r.order_identifier = o.order_identifier)
                """
            ).all()
            events += try emptied.map {
                Self.walletEvent(
                    .orderWalletRemoved, merchantID: try $0.string("merchant_id"),
                    order: OrderKey(orderTypeIdentifier: try $0.string("order_type_identifier"), orderIdentifier: try $0.string("order_identifier")))
            }
        }
        return events
    }

    /// Removes a registration; `false` if there was none.
    public func unregister(deviceLibraryIdentifier: String, orderTypeIdentifier: String, orderIdentifier: String) async throws -> Bool {
        try await write("unregister device \(deviceLibraryIdentifier) from \(orderTypeIdentifier)/\(orderIdentifier)") { db in
            let now = self.now()
            let (deleted, events, insights) = try await deleteRegistrations(
                db,
                where: """
                    device_library_identifier = \(bind: deviceLibraryIdentifier) AND order_type_identifier = \(bind: orderTypeIdentifier) \
                    AND order_identifier = \(bind: orderIdentifier)
                    """,
                at: now)
            try await Self.appendEvents(db, events, at: now, insights: insights)
            return deleted > 0
        }
    }

    /// A registration's activity entry: the device by the first characters of its library identifier, never its token.
    static func deviceActivity(_ kind: OrderActivity.Kind, _ device: String, _ type: String, _ id: String, _ at: Int64) -> OrderActivity {
        OrderActivity(
            orderTypeIdentifier: type, orderIdentifier: id, kind: kind, detail: OrderActivity.shortDeviceIdentifier(device),
            at: Date(millisecondsSince1970: at))
    }

    /// The device's registered orders of a type that changed after `changedAfter` (all of them when `nil`); `nil` when
    /// there are none.
    ///
    /// One index range of `registrations` (its primary key starts with device and type) joined to `orders`
    /// by primary key: the cost follows the device's registrations, not the size of either table.
    public func registeredOrderIdentifiers(
        deviceLibraryIdentifier: String,
        orderTypeIdentifier: String,
        changedAfter: Int64?
    ) async throws -> ChangedOrders? {
        ChangedOrders(
            try await registeredOrders(
                deviceLibraryIdentifier: deviceLibraryIdentifier, orderTypeIdentifier: orderTypeIdentifier, changedAfter: changedAfter),
            changedAfter: changedAfter)
    }

    private func registeredOrders(deviceLibraryIdentifier: String, orderTypeIdentifier: String, changedAfter: Int64?) async throws
        -> [RegisteredOrder]
    {
        try await read("list registrations of device \(deviceLibraryIdentifier)") { db in
            let rows = try await db.raw(
                Self.registeredOrdersQuery(
                    deviceLibraryIdentifier: deviceLibraryIdentifier,
                    orderTypeIdentifier: orderTypeIdentifier,
                    changedAfter: changedAfter
                )
            ).all()
            return try rows.map {
                RegisteredOrder(orderIdentifier: try $0.string("order_identifier"), changeSequence: try $0.int64("change_sequence"))
            }
            .sorted { $0.changeSequence < $1.changeSequence }
        }
    }

    static func registeredOrdersQuery(deviceLibraryIdentifier: String, orderTypeIdentifier: String, changedAfter: Int64?) -> SQLQueryString {
        var query: SQLQueryString = """
            SELECT o.order_identifier, o.change_sequence FROM registrations r \
            JOIN orders o ON o.order_type_identifier = r.order_type_identifier AND o.order_identifier = r.order_identifier \
            WHERE r.device_library_identifier = \(bind: deviceLibraryIdentifier) \
            AND r.order_type_identifier = \(bind: orderTypeIdentifier)
            """
        if let changedAfter {
            query = query + " AND o.change_sequence > \(bind: changedAfter)"
        }
        return query
    }

    /// Every registration of an order, sorted by device.
    public func registrations(orderTypeIdentifier: String, orderIdentifier: String) async throws -> [Registration] {
        try await read("list registrations of \(orderTypeIdentifier)/\(orderIdentifier)") { db in
            try await db.select()
                .columns("device_library_identifier", "push_token", "order_type_identifier", "order_identifier", "registered_at")
                .from("registrations")
                .where("order_type_identifier", .equal, orderTypeIdentifier)
                .where("order_identifier", .equal, orderIdentifier)
                .orderBy("device_library_identifier")
                .all()
                .map(Self.registration(from:))
        }
    }

    /// Deletes the registrations of a push token rejected by APNs; with `registeredBefore`, only those registered
    /// before that instant (APNs' 410 timestamp). Returns the number deleted. In no role: the dispatcher drops dead
    /// tokens through ``resolvePushJobs(_:)``, and tests call this.
    public func deleteRegistrations(pushToken: String, registeredBefore: Date?) async throws -> Int {
        try await write("delete registrations of a push token") { db in
            let delete = db.delete(from: "registrations").where("push_token", .equal, pushToken)
            if let registeredBefore {
                delete.where("registered_at", .lessThan, registeredBefore.millisecondsSince1970)
            }
            let types = try await delete.returning("order_type_identifier").all().map { try $0.string("order_type_identifier") }
            try await Self.recordInsights(db, Self.registrationsRemoved(types, at: self.now()))
            return types.count
        }
    }

    /// Inserts many new registrations in one transaction, for seeding benchmarks and imports; fails as a whole on any
    /// duplicate or unknown order. In no role: only tests and tools use it.
    public func insertRegistrations(_ registrations: [Registration]) async throws {
        guard !registrations.isEmpty else { return }
        try await write("insert \(registrations.count) registrations") { db in
            var insights = InsightTally()
            for registration in registrations { insights.add(.registrationChange, registration.orderTypeIdentifier, at: registration.registeredAt) }
            for chunk in registrations.chunked(into: 2000) {
                let insert = db.insert(into: "registrations")
                    .columns("device_library_identifier", "order_type_identifier", "order_identifier", "push_token", "registered_at")
                for registration in chunk {
                    insert.values(
                        registration.deviceLibraryIdentifier, registration.orderTypeIdentifier, registration.orderIdentifier,
                        registration.pushToken, registration.registeredAt.millisecondsSince1970
                    )
                }
                try await insert.run()
            }
            try await Self.recordInsights(db, insights)
            // A bulk load refreshes the statistics as a bulk loader should: planned with the table's statistics from
            // before it, a fan-out's first chunk sorted all of an order's 100,000 registrations (66 ms) instead of
            // reading the first 1,000 in index order (1 ms).
            if registrations.count >= Self.bulkRegistrations, let refresh = backend.statisticsRefresh(of: "registrations") {
                try await db.raw(refresh).run()
            }
        }
    }

    /// Registrations one insert adds from which the planner's statistics are refreshed.
    static let bulkRegistrations = 1_000

    static func registration(from row: any SQLRow) throws -> Registration {
        Registration(
            deviceLibraryIdentifier: try row.string("device_library_identifier"),
            pushToken: try row.string("push_token"),
            orderTypeIdentifier: try row.string("order_type_identifier"),
            orderIdentifier: try row.string("order_identifier"),
            registeredAt: try row.date("registered_at")
        )
    }
}
