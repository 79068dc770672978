import Foundation
import SQLKit
import Synchronization

/// What the write transaction in progress did that is acted on only once it has committed: `write` sets one around
/// its transaction.
final class CommitMark: Sendable {
    @TaskLocal static var current: CommitMark?
    /// Events appended: the observers of committed events are told.
    let appended = Atomic(false)
    /// A webhook endpoint added or enabled: committed events wake the webhook worker again (``WebhookEndpointPresence``).
    let enabledWebhookEndpoint = Atomic(false)
    /// A push fan-out left to expand: the dispatcher is told (``SQLOrderStore/observePushFanOuts(_:)``).
    let queuedFanOut = Atomic(false)
}

extension SQLOrderStore {
    static let eventColumns = ["id", "merchant_id", "sequence", "type", "created_at", "order_type_identifier", "order_identifier", "data"]

    /// The largest page ``events(merchantID:type:after:limit:)`` returns.
    public static let maximumEventPageSize = 100

    /// Appends events in the caller's transaction, as the last writes before its commit: one statement per merchant for
    /// its sequence numbers, one insert for all the events; then the transaction's insight increments, `insights` and
    /// those the events count (``recordInsights(_:_:)``). On PostgreSQL all of that is one statement.
    ///
    /// The sequence rows stay locked until the commit (PostgreSQL), so a merchant's events commit in sequence order.
    /// Taken last and in merchant order, they never make two transactions wait on each other crosswise.
    static func appendEvents(_ db: any SQLDatabase, _ events: [NewEvent], at date: Date, insights: InsightTally = InsightTally()) async throws {
        try await appendingEvents(db, events, at: date, insights: insights) { writes in try await runChained(db, writes) }
    }

    /// Runs `last`, the transaction's last statement but the events', then appends `events` as
    /// ``appendEvents(_:_:at:insights:)`` does. On PostgreSQL `last` gets the events' and insight counts' writes as
    /// data-modifying `WITH` clauses to chain into its statement (or to run with ``runChained(_:_:)``): the locked rows
    /// before the commit then cost one round trip, not three.
    static func appendingEvents<T: Sendable>(
        _ db: any SQLDatabase, _ events: [NewEvent], at date: Date, insights: InsightTally,
        _ last: ([SQLQueryString]) async throws -> T
    ) async throws -> T {
        var tally = insights
        tally.add(events, at: date)
        if db.chainsWrites, let writes = chainedEventWrites(events, at: date, tally: tally) {
            if !events.isEmpty { CommitMark.current?.appended.store(true, ordering: .relaxed) }
            return try await last(writes)
        }
        let value = try await last([])
        try await insertEvents(db, events, at: date)
        try await recordInsights(db, tally)
        return value
    }

    /// Runs data-modifying `WITH` clauses alone, as one statement.
    static func runChained(_ db: any SQLDatabase, _ writes: [SQLQueryString]) async throws {
        guard !writes.isEmpty else { return }
        try await db.raw("WITH \(writes.joined(separator: ", ")) SELECT 1").run()
    }

    /// The events' and the tally's writes as `WITH` clauses; `nil` when they are too many for one statement's binds.
    /// PostgreSQL runs the clauses a statement's main query does not read last to first, so they are listed in reverse:
    /// run, they take the rows in the order every transaction does (each merchant's sequence in merchant order, then
    /// the insight counts in key order).
    private static func chainedEventWrites(_ events: [NewEvent], at date: Date, tally: InsightTally) -> [SQLQueryString]? {
        guard events.count <= 4 * statementChunk, tally.counts.count <= 4 * statementChunk else { return nil }
        let createdAt = date.millisecondsSince1970
        var writes: [SQLQueryString] = []
        for (index, (merchantID, merchantEvents)) in Dictionary(grouping: events, by: \.merchantID).sorted(by: { $0.key < $1.key }).enumerated() {
            let count = Int64(merchantEvents.count)
            let rows = SQLBoundRows(
                .text(merchantEvents.map { _ in randomIdentifier(prefix: "evt_") }), .integer(merchantEvents.indices.map(Int64.init)),
                .text(merchantEvents.map(\.type.rawValue)), .text(merchantEvents.map { $0.order?.orderTypeIdentifier }),
                .text(merchantEvents.map { $0.order?.orderIdentifier }), .text(merchantEvents.map { EventValue.serialized($0.data) }))
            writes.append(
                """
                taken\(unsafeRaw: String(index)) AS (INSERT INTO event_sequences (merchant_id, last) VALUES (\(bind: merchantID), \(bind: count)) \
                ON CONFLICT (merchant_id) DO UPDATE SET last = event_sequences.last + excluded.last RETURNING last), \
                events\(unsafeRaw: String(index)) AS (INSERT INTO events (id, merchant_id, sequence, type, created_at, order_type_identifier, \
                order_identifier, data) SELECT v.column1, \(bind: merchantID), taken\(unsafeRaw: String(index)).last - \(bind: count - 1) + v.column2, \
                v.column3, \(bind: createdAt), v.column4, v.column5, v.column6 FROM taken\(unsafeRaw: String(index)), \(rows))
                """)
        }
        for (index, chunk) in insightChunks(tally).enumerated() {
            writes.append("insights\(unsafeRaw: String(index)) AS (\(insightUpsert(chunk)))")
        }
        return writes.reversed()
    }

    /// Inserts the events with a statement per merchant for its sequence numbers, then one per ``statementChunk`` events.
    private static func insertEvents(_ db: any SQLDatabase, _ events: [NewEvent], at date: Date) async throws {
        guard !events.isEmpty else { return }
        CommitMark.current?.appended.store(true, ordering: .relaxed)
        let createdAt = date.millisecondsSince1970
        let byMerchant = Dictionary(grouping: events, by: \.merchantID).sorted { $0.key < $1.key }
        var next: [String: Int64] = [:]
        for (merchantID, merchantEvents) in byMerchant {
            let count = Int64(merchantEvents.count)
            let last = try await db.raw(
                """
                INSERT INTO event_sequences (merchant_id, last) VALUES (\(bind: merchantID), \(bind: count))
                ON CONFLICT (merchant_id) DO UPDATE SET last = event_sequences.last + excluded.last
                RETURNING last
                """
            ).first(decodingColumn: "last", as: Int64.self)
            guard let last else { throw OrderStoreError.corruptRecord(table: "event_sequences", reason: "no sequence for merchant \(merchantID)") }
            next[merchantID] = last - count + 1
        }
        // 8 binds a row stays far below SQLite's and PostgreSQL's bind limits.
        for chunk in events.chunked(into: statementChunk) {
            let insert = db.insert(into: "events").columns(eventColumns)
            for event in chunk {
                let sequence = next[event.merchantID, default: 0]
                next[event.merchantID] = sequence + 1
                insert.values(
                    randomIdentifier(prefix: "evt_"), event.merchantID, sequence, event.type.rawValue, createdAt, event.order?.orderTypeIdentifier,
                    event.order?.orderIdentifier, EventValue.serialized(event.data))
            }
            try await insert.run()
        }
    }

    /// Adds an observer told after each commit that appended events while an enabled webhook endpoint may exist.
    public func observeCommittedEvents(_ observer: @escaping @Sendable () -> Void) {
        eventObservers.withLock { $0.append(observer) }
    }

    /// The merchant's events, newest first; see ``EventLog/events(merchantID:type:after:limit:)``.
    public func events(merchantID: String, type: EventType?, after cursor: String?, limit: Int) async throws -> EventPage {
        guard (1...Self.maximumEventPageSize).contains(limit) else {
            throw OrderStoreError.invalidArgument(name: "limit", reason: "\(limit) is not between 1 and \(Self.maximumEventPageSize)")
        }
        let before = try cursor.map(ListCursor.events.decode)
        return try await read("list events of merchant \(merchantID)") { db in
            // One more than the page, to know whether another follows.
            let rows = try await Self.eventsQuery(db, merchantID: merchantID, type: type, before: before, limit: limit + 1).all()
            let events = try rows.prefix(limit).map(Self.event(from:))
            return EventPage(events: events, nextCursor: rows.count > limit ? events.last.map { ListCursor.events.encode($0.sequence) } : nil)
        }
    }

    /// A merchant's events before a sequence, newest first: one range of `events_merchant_sequence`, or of
    /// `events_merchant_type` for one type, read backwards without sorting.
    static func eventsQuery(_ db: any SQLDatabase, merchantID: String, type: EventType?, before: Int64?, limit: Int) -> SQLSelectBuilder {
        let query = db.select().columns(eventColumns).from("events").where("merchant_id", .equal, merchantID)
        if let type { query.where("type", .equal, type.rawValue) }
        if let before { query.where("sequence", .lessThan, before) }
        return query.orderBy("sequence", .descending).limit(limit)
    }

    /// The merchant's event with this id; see ``EventLog/event(id:merchantID:)``.
    public func event(id: String, merchantID: String) async throws -> EventRecord? {
        try await read("read event \(id)") { db in
            try await db.select().columns(Self.eventColumns).from("events").where("id", .equal, id).where("merchant_id", .equal, merchantID)
                .first().map(Self.event(from:))
        }
    }

    /// Deletes events created before `date`, in batches; returns the number deleted.
    public func deleteEvents(before date: Date) async throws -> Int {
        try await deleteOldest(from: "events", time: "created_at", order: "created_at", before: date, operation: "delete old events")
    }

    static func event(from row: any SQLRow) throws -> EventRecord {
        let type = try row.string("type")
        guard let known = EventType(rawValue: type) else {
            throw OrderStoreError.corruptRecord(table: "events", reason: "unknown type '\(type)'")
        }
        let orderType = try row.optionalString("order_type_identifier")
        let orderIdentifier = try row.optionalString("order_identifier")
        return EventRecord(
            id: try row.string("id"), merchantID: try row.string("merchant_id"), sequence: try row.int64("sequence"), type: known,
            createdAt: try row.date("created_at"),
            order: orderType.flatMap { type in orderIdentifier.map { OrderKey(orderTypeIdentifier: type, orderIdentifier: $0) } },
            data: try row.string("data"))
    }

    // MARK: The events of each cause

    /// The order's data in each order event: which order, and its version when the event is about one.
    static func orderData(_ order: OrderRecord) -> [String: EventValue] {
        [
            "orderTypeIdentifier": .string(order.orderTypeIdentifier), "orderIdentifier": .string(order.orderIdentifier),
            "version": .integer(Int64(order.version)), "status": EventValue(order.status), "orderNumber": EventValue(order.orderNumber),
        ]
    }

    /// A creation's or an update's events: `order.created` or `order.updated` (with the JSON Pointers the change touched
    /// and who made it), and for an update `fulfillment.delivered` or `fulfillment.issue` for each fulfillment it moved
    /// to such a status.
    static func changeEvents(_ order: OrderRecord, created: Bool, note: ChangeNote) -> [NewEvent] {
        var data = orderData(order)
        data["actor"] = .object(["channel": EventValue(note.author), "keyId": EventValue(note.keyID), "keyName": EventValue(note.keyName)])
        if !created { data["changedPaths"] = .strings(note.changedPaths) }
        var events = [NewEvent(merchantID: order.merchantID, type: created ? .orderCreated : .orderUpdated, order: order.key, data: data)]
        for change in note.fulfillmentChanges {
            guard let type = EventType.fulfillment(reaching: change.to) else { continue }
            var data = orderData(order)
            data["fulfillmentIdentifier"] = .string(change.fulfillmentIdentifier)
            data["fulfillmentStatus"] = .string(change.to)
            data["previousFulfillmentStatus"] = EventValue(change.from)
            events.append(NewEvent(merchantID: order.merchantID, type: type, order: order.key, data: data))
        }
        return events
    }

    /// `order.wallet_added` or `order.wallet_removed` for one order.
    static func walletEvent(_ type: EventType, merchantID: String, order: OrderKey) -> NewEvent {
        NewEvent(
            merchantID: merchantID, type: type, order: order,
            data: ["orderTypeIdentifier": .string(order.orderTypeIdentifier), "orderIdentifier": .string(order.orderIdentifier)])
    }
}
