import Foundation
import SQLKit

extension SQLOrderStore {
    static let orderColumns = [
        "order_type_identifier", "order_identifier", "merchant_id", "authentication_token", "document", "status",
        "created_at", "updated_at", "version", "change_sequence", "created_sequence", "order_number",
    ]
    /// ``orderColumns`` as SQL text, for the reads every update and fetch makes: SQLKit's builder quotes each
    /// identifier by searching it for quotes, which made a builder statement's text cost ten times a raw one's (in the
    /// soak, SQL text was 5 % of the server's CPU).
    static let orderColumnList = orderColumns.joined(separator: ", ")

    /// The largest page ``listOrders(merchantID:orderTypeIdentifier:orderNumber:status:updatedSince:after:limit:)`` returns.
    public static let maximumPageSize = 1000

    /// Stores a new order with version 1 and the next change sequence, timestamps truncated to milliseconds, and its
    /// `created` activity entry; returns it as stored.
    ///
    /// - Throws: ``OrderStoreError/orderAlreadyExists(orderTypeIdentifier:orderIdentifier:)``,
    ///   ``OrderStoreError/orderTypeNotFound(orderTypeIdentifier:)``, or
    ///   ``OrderStoreError/orderTypeOwnedByAnotherMerchant(orderTypeIdentifier:)`` when the type is not the order's merchant's.
    @discardableResult
    public func createOrder(_ order: OrderRecord, note: ChangeNote, tracking: [FulfillmentTrackingEntry]) async throws -> OrderRecord {
        try await write("create order \(order.orderTypeIdentifier)/\(order.orderIdentifier)") { db in
            try await insertOrder(db, order, note: note, tracking: tracking)
        }
    }

    /// Stores a new order and the response under the claim's idempotency key in one transaction; when the key already
    /// holds a response, writes nothing and returns that response as ``IdempotentCreationOutcome/replayed(_:)``.
    ///
    /// The key is claimed first, so a concurrent request with the same key finds this response instead of creating a
    /// second order. Throws as ``createOrder(_:note:tracking:)``.
    public func createOrder(_ order: OrderRecord, idempotency: IdempotencyClaim, note: ChangeNote, tracking: [FulfillmentTrackingEntry])
        async throws -> IdempotentCreationOutcome
    {
        try await write("create order \(order.orderTypeIdentifier)/\(order.orderIdentifier) under an idempotency key") { db in
            // The key first: a concurrent request with the same key waits on it (PostgreSQL's unique index) or runs
            // after this transaction (SQLite's single writer), then finds this response instead of creating an order.
            if let existing = try await Self.claimIdempotencyKey(db, idempotency) { return .replayed(existing) }
            return .created(try await insertOrder(db, order, note: note, tracking: tracking))
        }
    }

    @discardableResult
    private func insertOrder(_ db: any SQLDatabase, _ order: OrderRecord, note: ChangeNote, tracking: [FulfillmentTrackingEntry]) async throws
        -> OrderRecord
    {
        try await Self.requireOrderType(db, order.orderTypeIdentifier, ownedBy: order.merchantID)
        try await Self.requireFreeAuthenticationToken(db, order.authenticationToken, except: order)
        if let number = order.orderNumber {
            // The order's own identifier is excepted: a repeated creation of one order is `orderAlreadyExists`.
            try await Self.requireFreeOrderNumber(
                db, number, type: order.orderTypeIdentifier, merchantID: order.merchantID, except: order.orderIdentifier)
        }
        var stored = order
        stored.version = 1
        // Its sequences are taken near the commit (assignChangeSequences).
        stored.changeSequence = 0
        stored.createdAt = Date(millisecondsSince1970: order.createdAt.millisecondsSince1970)
        stored.updatedAt = Date(millisecondsSince1970: order.updatedAt.millisecondsSince1970)
        guard try await Self.insertOrderRow(db, stored) else {
            throw OrderStoreError.orderAlreadyExists(orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier)
        }
        let now = self.now()
        try await Self.insertActivity(db, [Self.changeActivity(stored, kind: .created, note: note, at: now)])
        if !tracking.isEmpty {
            try await replaceFulfillmentTracking(db, order: stored.key, merchantID: stored.merchantID, entries: tracking)
        }
        var insights = InsightTally()
        insights.add(.ordersCreated, stored.orderTypeIdentifier, at: stored.createdAt)
        stored.changeSequence = try await Self.appendingEvents(db, Self.changeEvents(stored, created: true, note: note), at: now, insights: insights)
        {
            try await assignChangeSequences(db, [stored.key], created: true, chaining: $0)[stored.key]!
        }
        return stored
    }

    /// Throws ``OrderStoreError/orderNumberExists(orderTypeIdentifier:orderNumber:existingOrderIdentifier:)`` when another
    /// order of the type has the number. Orders stored before numbers were unique may share one, so this is a check in
    /// the writing transaction rather than a unique index: SQLite has one writer, and on PostgreSQL a transaction lock
    /// on the number makes concurrent writers of the same number take turns.
    static func requireFreeOrderNumber(_ db: any SQLDatabase, _ number: String, type: String, merchantID: String, except: String?) async throws {
        if db.dialect.name == "postgresql" {
            // The two-key form: its key space is apart from the migrations' one-key lock.
            try await db.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: type)), hashtext(\(bind: number)))").run()
        }
        let query = db.select().column("order_identifier").from("orders")
            .where("merchant_id", .equal, merchantID).where("order_number", .equal, number).where("order_type_identifier", .equal, type)
        if let except { query.where("order_identifier", .notEqual, except) }
        if let existing = try await query.limit(1).first(decodingColumn: "order_identifier", as: String.self) {
            throw OrderStoreError.orderNumberExists(orderTypeIdentifier: type, orderNumber: number, existingOrderIdentifier: existing)
        }
    }

    /// Throws ``OrderStoreError/authenticationTokenTaken`` when any order, of any merchant, has the token: devices and
    /// the providers' `/v1/push` find an order by its token alone, so a second holder would make the first ambiguous.
    /// Orders stored before tokens were unique may share one, so this is a check in the writing transaction (with a
    /// PostgreSQL transaction lock on the token) rather than a unique index.
    /// The order itself is excepted: a repeated creation of one order is `orderAlreadyExists`.
    static func requireFreeAuthenticationToken(_ db: any SQLDatabase, _ token: String, except order: OrderRecord) async throws {
        if db.dialect.name == "postgresql" {
            try await db.raw("SELECT pg_advisory_xact_lock(hashtext('authentication_token'), hashtext(\(bind: token)))").run()
        }
        let holders = try await db.select().column("order_type_identifier").column("order_identifier").from("orders")
            .where("authentication_token", .equal, token).limit(2).all()
        let others = try holders.filter {
            try $0.string("order_type_identifier") != order.orderTypeIdentifier || $0.string("order_identifier") != order.orderIdentifier
        }
        if !others.isEmpty { throw OrderStoreError.authenticationTokenTaken }
    }

    /// The order with this type and identifier, or `nil`.
    public func order(type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> OrderRecord? {
        try await read("read order \(orderTypeIdentifier)/\(orderIdentifier)") { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.orderColumnList) FROM orders
                WHERE order_type_identifier = \(bind: orderTypeIdentifier) AND order_identifier = \(bind: orderIdentifier)
                """
            ).first().map(Self.order(from:))
        }
    }

    /// The versions of these orders, by primary key (a row-value `IN`, which both databases answer with index lookups).
    public func orderVersions(_ keys: [OrderKey]) async throws -> [OrderKey: Int] {
        guard !keys.isEmpty else { return [:] }
        precondition(keys.count <= 500, "at most 500 orders per version read")
        return try await read("read the versions of \(keys.count) orders") { db in
            var versions: [OrderKey: Int] = [:]
            for row in try await db.raw("SELECT order_type_identifier, order_identifier, version FROM orders WHERE \(Self.keyList(keys))").all() {
                let key = OrderKey(orderTypeIdentifier: try row.string("order_type_identifier"), orderIdentifier: try row.string("order_identifier"))
                versions[key] = try row.decode(column: "version", as: Int.self)
            }
            return versions
        }
    }

    /// Replaces the document of an order if its version is still `expectedVersion`, bumps version and change sequence,
    /// and queues a push to each registered device and records the `updated` activity entry in the same transaction
    /// (the outbox).
    ///
    /// `updatedAt` is stored as given when it is later than the stored value, otherwise as the stored
    /// value plus 1 ms, so it strictly increases even if the clock steps back.
    ///
    /// A new `authenticationToken` (a rotation) replaces the order's, and the registrations made with the old one
    /// (those naming no wallet link) are deleted before the pushes are queued: those devices can no longer fetch it.
    ///
    /// Updates made at the same time (the carrier worker's parcels, a bulk request's orders, concurrent PATCHes) share
    /// one transaction (a group commit), each still checked against its own expected version.
    ///
    /// - Throws: ``OrderStoreError/versionConflict(orderTypeIdentifier:orderIdentifier:expected:actual:)`` when another
    ///   update came first (re-read and retry), ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)``.
    public func updateOrder(
        type orderTypeIdentifier: String,
        id orderIdentifier: String,
        expectedVersion: Int,
        document: [UInt8],
        status: String?,
        orderNumber: String?,
        renumberedFor merchantID: String?,
        updatedAt: Date,
        note: ChangeNote,
        authenticationToken: String?,
        tracking: [FulfillmentTrackingEntry]?,
        scan: FulfillmentScan?
    ) async throws -> OrderRecord {
        let update = OrderUpdate(
            key: OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier), expectedVersion: expectedVersion,
            document: document, status: status, orderNumber: orderNumber, renumberedFor: merchantID, updatedAt: updatedAt, note: note,
            authenticationToken: authenticationToken, tracking: tracking, scan: scan)
        return try await orderUpdates.submit(update) { try await self.writeOrderUpdates($0) }
    }

    /// One order's update as ``updateOrder(type:id:expectedVersion:document:status:orderNumber:renumberedFor:updatedAt:note:authenticationToken:tracking:scan:)``
    /// takes it.
    struct OrderUpdate: Sendable {
        var key: OrderKey
        var expectedVersion: Int
        var document: [UInt8]
        var status: String?
        var orderNumber: String?
        var renumberedFor: String?
        var updatedAt: Date
        var note: ChangeNote
        var authenticationToken: String?
        var tracking: [FulfillmentTrackingEntry]?
        var scan: FulfillmentScan?
    }

    /// Writes `updates` in one transaction with a statement per kind of write, not per order: one that reads the orders
    /// as they are (on PostgreSQL locking them, in key order, so overlapping batches never wait on each other
    /// crosswise), one that records the carrier scans the updates were decided on, one for the pushes of them all, one
    /// for their activity entries, one that writes the orders' rows with their change tags, and the events
    /// (`appendEvents`). A renumbering, a new authentication token or new tracking numbers add that order's own
    /// statements. A version conflict, a missing order, a taken order number or a superseded scan is that update's
    /// answer and writes nothing of it; a database error fails them all.
    func writeOrderUpdates(_ updates: [OrderUpdate]) async throws -> [Result<OrderRecord, any Error>] {
        let operation =
            updates.count == 1
            ? "update order \(updates[0].key.orderTypeIdentifier)/\(updates[0].key.orderIdentifier)" : "update \(updates.count) orders"
        // In key order, so two batches take shared rows in the same order. Each round names an order once; an order's
        // later update goes in a later round (it must see the one before), as does a renumbering to a number an earlier
        // one in the batch takes (it must find that order holding it).
        let sorted = updates.indices.sorted {
            (updates[$0].key.orderTypeIdentifier, updates[$0].key.orderIdentifier, $0) < (
                updates[$1].key.orderTypeIdentifier, updates[$1].key.orderIdentifier, $1
            )
        }
        var rounds: [[Int]] = []
        var keys: [OrderKey] = []
        var claimedNumbers: [[String]: Int] = [:]
        var round = 0
        for index in sorted {
            let update = updates[index]
            if keys.last == update.key {
                round += 1
            } else {
                keys.append(update.key)
                round = 0
            }
            if let number = update.orderNumber, let merchantID = update.renumberedFor {
                let claim = [update.key.orderTypeIdentifier, merchantID, number]
                if let taken = claimedNumbers[claim] { round = max(round, taken + 1) }
                claimedNumbers[claim] = round
            }
            while rounds.count <= round { rounds.append([]) }
            rounds[round].append(index)
        }
        return try await write(operation) { db in
            let now = self.now()
            var results: [Result<OrderRecord, any Error>?] = Array(repeating: nil, count: updates.count)
            var activity: [OrderActivity] = []
            var events: [NewEvent] = []
            var insights = InsightTally()
            // Each order as it is, then as each update leaves it; its row is written once, at the end.
            var orders = try await Self.lockOrders(db, keys, lockClause: self.backend.rowLockClause)
            var written: [OrderKey] = []
            for round in rounds {
                var pending: [Int] = []
                for index in round {
                    let update = updates[index]
                    let key = update.key
                    guard let order = orders[key] else {
                        results[index] = .failure(
                            OrderStoreError.orderNotFound(orderTypeIdentifier: key.orderTypeIdentifier, orderIdentifier: key.orderIdentifier))
                        continue
                    }
                    guard order.version == update.expectedVersion else {
                        results[index] = .failure(
                            OrderStoreError.versionConflict(
                                orderTypeIdentifier: key.orderTypeIdentifier, orderIdentifier: key.orderIdentifier, expected: update.expectedVersion,
                                actual: order.version))
                        continue
                    }
                    if let orderNumber = update.orderNumber, let merchantID = update.renumberedFor {
                        do {
                            try await Self.requireFreeOrderNumber(
                                db, orderNumber, type: key.orderTypeIdentifier, merchantID: merchantID, except: key.orderIdentifier)
                        } catch let error as OrderStoreError {
                            results[index] = .failure(error)
                            continue
                        }
                        // Now, not with the row at the end: a later round's renumbering must find it.
                        try await db.update("orders").set("order_number", to: orderNumber)
                            .where("order_type_identifier", .equal, key.orderTypeIdentifier).where("order_identifier", .equal, key.orderIdentifier)
                            .run()
                    }
                    pending.append(index)
                }
                // Recorded first, as the scans the worker decided on: a newer one another writer recorded refuses its update.
                let trackedScans = pending.compactMap { index in
                    updates[index].scan.flatMap { $0.wasTracked ? (updates[index].key, $0.fulfillmentIdentifier, $0.at) : nil }
                }
                let recorded = try await Self.recordFulfillmentScans(db, trackedScans)
                var untrackedScans: [(order: OrderKey, fulfillmentIdentifier: String, at: Date)] = []
                for index in pending {
                    let update = updates[index]
                    let key = update.key
                    if let scan = update.scan, scan.wasTracked,
                        !recorded.contains(FulfillmentKey(order: key, fulfillmentIdentifier: scan.fulfillmentIdentifier))
                    {
                        results[index] = .failure(
                            OrderStoreError.scanSuperseded(
                                orderTypeIdentifier: key.orderTypeIdentifier, orderIdentifier: key.orderIdentifier,
                                fulfillmentIdentifier: scan.fulfillmentIdentifier))
                        continue
                    }
                    var order = orders[key]!
                    order.document = update.document
                    order.status = update.status
                    order.orderNumber = update.orderNumber
                    // Strictly later than the stored time, even if the given one is not (a clock that stepped back).
                    order.updatedAt = Date(
                        millisecondsSince1970: max(update.updatedAt.millisecondsSince1970, order.updatedAt.millisecondsSince1970 + 1))
                    order.version += 1
                    if let authenticationToken = update.authenticationToken {
                        order.authenticationToken = authenticationToken
                        let removed = try await deleteRegistrations(
                            db,
                            where: """
                                order_type_identifier = \(bind: key.orderTypeIdentifier) AND order_identifier = \(bind: key.orderIdentifier) \
                                AND wallet_link_id IS NULL
                                """,
                            at: now)
                        events += removed.events
                        insights.merge(removed.insights)
                    }
                    if let tracking = update.tracking {
                        try await replaceFulfillmentTracking(db, order: key, merchantID: order.merchantID, entries: tracking)
                    }
                    // A fulfillment found by the order reference is tracked from this update on.
                    if let scan = update.scan, !scan.wasTracked { untrackedScans.append((key, scan.fulfillmentIdentifier, scan.at)) }
                    orders[key] = order
                    written.append(key)
                    activity.append(Self.changeActivity(order, kind: .updated, note: update.note, at: now))
                    events += Self.changeEvents(order, created: false, note: update.note)
                    results[index] = .success(order)
                }
                try await Self.recordFulfillmentScans(db, untrackedScans)
            }
            if !written.isEmpty {
                try await self.enqueuePushes(db, orders: written, now: now.millisecondsSince1970)
                try await Self.insertActivity(db, activity)
                // Near the commit, since every write of an order waits on the counter's row; before the events, whose
                // sequence rows every transaction takes after the counter.
                let sequences = try await Self.appendingEvents(db, events, at: now, insights: insights) {
                    try await assignChangeSequences(db, written, rows: orders, chaining: $0)
                }
                for index in results.indices {
                    guard case .success(var order)? = results[index], let sequence = sequences[order.key] else { continue }
                    order.changeSequence = sequence
                    results[index] = .success(order)
                }
            }
            return results.map { $0 ?? .failure(OrderStoreError.invalidArgument(name: "updates", reason: "an update was not written")) }
        }
    }

    /// The columns of an order but its document, which an update replaces without reading it.
    private static let orderColumnsButDocument = orderColumns.filter { $0 != "document" }

    /// The orders with these keys (at most ``statementChunk``) as they are, each with an empty document, read in key
    /// order with `lockClause` (PostgreSQL's `FOR UPDATE`: the rows stay this transaction's until it ends).
    private static func lockOrders(_ db: any SQLDatabase, _ keys: [OrderKey], lockClause: String) async throws -> [OrderKey: OrderRecord] {
        var orders: [OrderKey: OrderRecord] = [:]
        let rows = try await db.raw(
            """
            SELECT \(unsafeRaw: orderColumnsButDocument.joined(separator: ", ")) FROM orders WHERE \(keyList(keys)) \
            ORDER BY order_type_identifier, order_identifier\(unsafeRaw: lockClause)
            """
        ).all()
        for row in rows {
            let order = try order(from: row, document: [])
            orders[order.key] = order
        }
        return orders
    }

    /// `(order_type_identifier, order_identifier) IN (…)` for `keys`: a row-value `IN`, which both databases answer with
    /// index lookups.
    static func keyList(_ keys: [OrderKey]) -> SQLQueryString {
        let rows = keys.map { key -> SQLQueryString in "(\(bind: key.orderTypeIdentifier), \(bind: key.orderIdentifier))" }
        return "(order_type_identifier, order_identifier) IN (\(rows.joined(separator: ", ")))"
    }

    /// A merchant's orders, optionally filtered by type, status and last update; `after` is the previous page's
    /// ``OrderPage/nextCursor``.
    ///
    /// Pages follow creation order (keyset on the immutable creation sequence), so an order updated while
    /// a client pages is neither skipped nor repeated. `updatedSince` is inclusive.
    ///
    /// - Throws: ``OrderStoreError/invalidArgument(name:reason:)`` when `limit` is not 1 to ``maximumPageSize``,
    ///   ``OrderStoreError/invalidCursor(_:)`` for a cursor this store did not issue.
    public func listOrders(
        merchantID: String,
        orderTypeIdentifier: String?,
        orderNumber: String?,
        status: String?,
        updatedSince: Date?,
        after cursor: String?,
        limit: Int
    ) async throws -> OrderPage {
        guard (1...Self.maximumPageSize).contains(limit) else {
            throw OrderStoreError.invalidArgument(name: "limit", reason: "\(limit) is not between 1 and \(Self.maximumPageSize)")
        }
        let afterSequence = try cursor.map(ListCursor.orders.decode)
        return try await read("list orders of merchant \(merchantID)") { db in
            let query = db.select().columns(Self.orderColumns).from("orders")
                .where("merchant_id", .equal, merchantID)
            if let orderTypeIdentifier {
                query.where("order_type_identifier", .equal, orderTypeIdentifier)
            }
            if let orderNumber {
                query.where("order_number", .equal, orderNumber)
            }
            if let status {
                query.where("status", .equal, status)
            }
            if let updatedSince {
                query.where("updated_at", .greaterThanOrEqual, updatedSince.millisecondsSince1970)
            }
            if let afterSequence {
                query.where("created_sequence", .greaterThan, afterSequence)
            }
            let rows = try await query.orderBy("created_sequence").limit(limit + 1).all()
            let page = rows.prefix(limit)
            let orders = try page.map(Self.order(from:))
            let nextCursor = try rows.count > limit ? page.last.map { ListCursor.orders.encode(try $0.int64("created_sequence")) } : nil
            return OrderPage(orders: orders, nextCursor: nextCursor)
        }
    }

    /// Inserts many new orders in one transaction, with version 1 and consecutive change sequences, for seeding
    /// benchmarks and imports; fails as a whole on any duplicate or order type that is not the order's merchant's.
    /// In no role: only tests and tools use it.
    public func insertOrders(_ orders: [OrderRecord]) async throws {
        guard !orders.isEmpty else { return }
        try await write("insert \(orders.count) orders") { db in
            var owners: [String: String] = [:]
            for order in orders where owners[order.orderTypeIdentifier] == nil {
                try await Self.requireOrderType(db, order.orderTypeIdentifier, ownedBy: order.merchantID)
                owners[order.orderTypeIdentifier] = order.merchantID
            }
            if let mismatch = orders.first(where: { owners[$0.orderTypeIdentifier] != $0.merchantID }) {
                throw OrderStoreError.orderTypeOwnedByAnotherMerchant(orderTypeIdentifier: mismatch.orderTypeIdentifier)
            }
            let last = try await nextChangeSequence(db, count: Int64(orders.count))
            var sequence = last - Int64(orders.count)
            var insights = InsightTally()
            // 12 binds per row stays under SQLite's and PostgreSQL's bind limits.
            for chunk in orders.chunked(into: 1000) {
                let insert = db.insert(into: "orders").columns(Self.orderColumns)
                for var order in chunk {
                    sequence += 1
                    order.version = 1
                    order.changeSequence = sequence
                    insert.values(Self.orderValues(order, createdSequence: sequence))
                    insights.add(.ordersCreated, order.orderTypeIdentifier, at: order.createdAt)
                }
                try await insert.run()
            }
            try await Self.recordInsights(db, insights)
        }
    }

    // MARK: Helpers

    static func requireOrderType(_ db: any SQLDatabase, _ orderTypeIdentifier: String, ownedBy merchantID: String) async throws {
        let owner = try await db.select().column("merchant_id").from("order_types")
            .where("order_type_identifier", .equal, orderTypeIdentifier)
            .first(decodingColumn: "merchant_id", as: String.self)
        guard let owner else { throw OrderStoreError.orderTypeNotFound(orderTypeIdentifier: orderTypeIdentifier) }
        guard owner == merchantID else {
            throw OrderStoreError.orderTypeOwnedByAnotherMerchant(orderTypeIdentifier: orderTypeIdentifier)
        }
    }

    static func requireOrder(_ db: any SQLDatabase, type orderTypeIdentifier: String, id orderIdentifier: String) async throws {
        let found = try await db.select().column("order_identifier").from("orders")
            .where("order_type_identifier", .equal, orderTypeIdentifier)
            .where("order_identifier", .equal, orderIdentifier)
            .first()
        guard found != nil else {
            throw OrderStoreError.orderNotFound(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        }
    }

    /// Inserts a new order's row; false when an order with its key exists. Until
    /// ``assignChangeSequences(_:_:created:rows:chaining:)`` gives the row its creation sequence near the commit, the
    /// row holds a random negative one: `(merchant_id, created_sequence)` is unique, and with one shared placeholder
    /// PostgreSQL made each transaction creating an order of a merchant wait at this `INSERT` for the commit of the one
    /// before (in a 64-connection soak setup, 43 ms an insert). Two equal placeholders would only wait so, never fail.
    static func insertOrderRow(_ db: any SQLDatabase, _ order: OrderRecord) async throws -> Bool {
        try await db.insert(into: "orders")
            .columns(Self.orderColumns)
            .values(Self.orderValues(order, createdSequence: -Int64.random(in: 1...Int64.max)))
            .ignoringConflicts(with: ["order_type_identifier", "order_identifier"])
            .returning("order_identifier")
            .first() != nil
    }

    static func orderValues(_ order: OrderRecord, createdSequence: Int64) -> [any Encodable & Sendable] {
        [
            order.orderTypeIdentifier, order.orderIdentifier, order.merchantID, order.authenticationToken,
            Data(order.document), order.status, order.createdAt.millisecondsSince1970,
            order.updatedAt.millisecondsSince1970, order.version, order.changeSequence, createdSequence, order.orderNumber,
        ]
    }

    static func order(from row: any SQLRow) throws -> OrderRecord {
        try order(from: row, document: row.bytes("document"))
    }

    /// The order of a row, with `document` instead of the row's (which need not have one).
    static func order(from row: any SQLRow, document: [UInt8]) throws -> OrderRecord {
        OrderRecord(
            orderTypeIdentifier: try row.string("order_type_identifier"),
            orderIdentifier: try row.string("order_identifier"),
            merchantID: try row.string("merchant_id"),
            authenticationToken: try row.string("authentication_token"),
            document: document,
            status: try row.optionalString("status"),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"),
            version: try row.int("version"),
            changeSequence: try row.int64("change_sequence"),
            orderNumber: try row.optionalString("order_number")
        )
    }
}

extension Array {
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension SQLOrderStore {
    /// The activity entry of a change: the version it made, who made it, which fields it touched.
    static func changeActivity(_ order: OrderRecord, kind: OrderActivity.Kind, note: ChangeNote, at: Date) -> OrderActivity {
        OrderActivity(
            orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier, kind: kind, version: order.version,
            author: note.author, detail: note.changedFields.isEmpty ? nil : note.changedFields.joined(separator: ", "), at: at,
            keyID: note.keyID, keyName: note.keyName, address: note.address, diff: note.diff)
    }
}
