import Foundation
import SQLKit

extension SQLOrderStore {
    static let carrierEventColumns = """
        id, connection_id, merchant_id, idempotency_key, provider, tracking_number, carrier, order_reference, occurred_at, event, \
        state, attempts, claimed_until, received_at, applied_at, outcome, order_type_identifier, order_identifier, fulfillment_identifier
        """

    /// What an event set back to pending says until the worker applies it.
    static let carrierEventRequeuedOutcome = "waiting again: a fulfillment now has this tracking number"

    /// Stores a verified event as pending, with its connection's merchant and provider; a redelivery changes nothing.
    ///
    /// Events that webhooks deliver at the same time are stored in one transaction (a group commit).
    ///
    /// - Throws: ``OrderStoreError/carrierConnectionNotFound(id:)``, ``OrderStoreError/invalidArgument(name:reason:)`` for a
    ///   blank tracking number.
    public func receiveCarrierEvent(_ event: IncomingCarrierEvent) async throws -> CarrierEventReceipt {
        var event = event
        event.trackingNumber = Self.trimmedTrackingNumber(event.trackingNumber)
        guard !event.trackingNumber.isEmpty else { throw OrderStoreError.invalidArgument(name: "trackingNumber", reason: "is blank") }
        return try await carrierInbox.submit(event) { try await self.storeCarrierEvents($0) }
    }

    /// Stores `events` with one statement, which takes each event's merchant and provider from its connection's row
    /// (so an event can only ever be its connection's, and one whose connection is gone is not stored) and skips
    /// redeliveries; only those are then looked up, one by one.
    ///
    /// One statement needs no explicit transaction: on SQLite that is one trip to the writer's thread instead of four
    /// (begin, read the connections, insert, commit), and the trips, not the rows, were the cost of a batch.
    private func storeCarrierEvents(_ events: [IncomingCarrierEvent]) async throws -> [Result<CarrierEventReceipt, any Error>] {
        let now = self.now().millisecondsSince1970
        var stored: [String: Int64] = [:]
        try await writeStatement("receive \(events.count) carrier events") { db in
            for row in try await db.raw(Self.carrierInboxInsert(events, receivedAt: now)).all() {
                stored[Self.inboxKey(try row.string("connection_id"), try row.string("idempotency_key"))] = try row.int64("id")
            }
        }
        var results: [Result<CarrierEventReceipt, any Error>] = []
        for event in events {
            if let id = stored.removeValue(forKey: Self.inboxKey(event.connectionID, event.idempotencyKey)) {
                results.append(.success(CarrierEventReceipt(id: id, isNew: true)))
                continue
            }
            let existing = try await read("look up a redelivered carrier event") { db in
                try await db.select().column("id").from("carrier_events")
                    .where("connection_id", .equal, event.connectionID).where("idempotency_key", .equal, event.idempotencyKey)
                    .first(decodingColumn: "id", as: Int64.self)
            }
            results.append(
                existing.map { .success(CarrierEventReceipt(id: $0, isNew: false)) }
                    ?? .failure(OrderStoreError.carrierConnectionNotFound(id: event.connectionID)))
        }
        return results
    }

    /// `INSERT … SELECT` from the events as `VALUES` joined to their connections. (SQLite reads `ON CONFLICT` after a
    /// join's `ON` only behind a `WHERE`, hence `WHERE true`; both databases name the `VALUES` columns `columnN`.)
    static func carrierInboxInsert(_ events: [IncomingCarrierEvent], receivedAt: Int64) -> SQLQueryString {
        let rows = SQLBoundRows(
            .text(events.map(\.connectionID)), .text(events.map(\.idempotencyKey)), .text(events.map(\.trackingNumber)),
            .text(events.map(\.carrier)), .text(events.map(\.orderReference)), .integer(events.map { $0.occurredAt.millisecondsSince1970 }),
            .blob(events.map { Data($0.event) }))
        return """
            INSERT INTO carrier_events (connection_id, merchant_id, idempotency_key, provider, tracking_number, carrier, order_reference, \
            occurred_at, event, state, attempts, received_at)
            SELECT c.id, c.merchant_id, v.column2, c.provider, v.column3, v.column4, v.column5, v.column6, v.column7, \
            \(bind: CarrierEventState.pending.rawValue), 0, \(bind: receivedAt)
            FROM \(rows) JOIN carrier_connections c ON c.id = v.column1
            WHERE true
            ON CONFLICT (connection_id, idempotency_key) DO NOTHING
            RETURNING id, connection_id, idempotency_key
            """
    }

    private static func inboxKey(_ connectionID: String, _ idempotencyKey: String) -> String {
        "\(connectionID)\u{0}\(idempotencyKey)"
    }

    /// Claims up to `limit` pending events for `leaseDuration` seconds, oldest first, and counts the attempt.
    ///
    /// On PostgreSQL events another instance is claiming are skipped, not waited for.
    public func claimCarrierEvents(limit: Int, leaseDuration: TimeInterval) async throws -> [CarrierEventRecord] {
        let now = self.now()
        let until = now.addingTimeInterval(leaseDuration).millisecondsSince1970
        // Most wake-ups (an order write with a tracking number, a poll) find nothing due: a read tells so without
        // queueing for SQLite's one writer.
        let due = try await read("look for due carrier events") { db in
            try await db.raw(
                "SELECT id FROM carrier_events WHERE state = 'pending' AND (claimed_until IS NULL OR claimed_until <= \(bind: now.millisecondsSince1970)) LIMIT 1"
            ).first()
        }
        guard due != nil else { return [] }
        let claim = Self.carrierClaimQuery(now: now.millisecondsSince1970, leaseUntil: until, limit: limit, skipLocked: backend.skipLockedClause)
        return try await writeClaim("claim carrier events") { db in
            try await db.raw(claim).all().map(Self.carrierEvent(from:)).sorted { $0.id < $1.id }
        }
    }

    /// Frees every claim; only for a process that knows it is the database's sole worker (SQLite), after a restart.
    public func releaseCarrierEventLeases() async throws {
        try await writeStatement("release carrier event leases") { db in
            try await db.raw("UPDATE carrier_events SET claimed_until = NULL WHERE state = 'pending' AND claimed_until IS NOT NULL").run()
        }
    }

    /// The inbox's backlog; the partial index of pending events holds exactly these.
    public func pendingCarrierEventCount() async throws -> Int {
        try await read("count pending carrier events", extent: .scan) { db in
            try await db.raw("SELECT COUNT(*) AS events FROM carrier_events WHERE state = 'pending'").first(decodingColumn: "events", as: Int.self)
                ?? 0
        }
    }

    /// The claim as one statement: pending events not under a live lease, in id order.
    static func carrierClaimQuery(now: Int64, leaseUntil: Int64, limit: Int, skipLocked: String) -> SQLQueryString {
        """
        UPDATE carrier_events SET claimed_until = \(bind: leaseUntil), attempts = attempts + 1
        WHERE id IN (
            SELECT id FROM carrier_events
            WHERE state = 'pending' AND (claimed_until IS NULL OR claimed_until <= \(bind: now))
            ORDER BY id LIMIT \(bind: limit)\(unsafeRaw: skipLocked))
        RETURNING \(unsafeRaw: Self.carrierEventColumns)
        """
    }

    /// Finishes claimed events in one transaction; see ``CarrierEventInbox/finishCarrierEvents(_:)``.
    ///
    /// - Throws: ``OrderStoreError/invalidArgument(name:reason:)`` for ``CarrierEventState/pending``.
    public func finishCarrierEvents(_ finishes: [CarrierEventFinish]) async throws -> [CarrierEventState?] {
        guard !finishes.contains(where: { $0.state == .pending }) else {
            throw OrderStoreError.invalidArgument(name: "state", reason: "an event is finished applied, unmatched, ignored or failed")
        }
        guard !finishes.isEmpty else { return [] }
        let now = self.now().millisecondsSince1970
        let ended = try await write("finish \(finishes.count) carrier events") { db in
            var ended: [Int64: CarrierEventState] = [:]
            var events: [NewEvent] = []
            let sorted = finishes.sorted { $0.id < $1.id }
            // In id order, as order writes lock the events they requeue: two transactions never wait on each other crosswise.
            if !backend.rowLockClause.isEmpty {
                for chunk in sorted.chunked(into: Self.statementChunk) {
                    try await db.raw(
                        "SELECT id FROM carrier_events WHERE id \(isIn: chunk.map(\.id)) ORDER BY id\(unsafeRaw: backend.rowLockClause)"
                    )
                    .run()
                }
            }
            // Most end applied or ignored: a statement per chunk of them, and one for the scans they record. An
            // unmatched one looks for fulfillments first.
            let settled = sorted.filter { $0.state != .unmatched }
            for chunk in settled.chunked(into: Self.statementChunk) {
                for id in try await Self.settleCarrierEvents(db, Array(chunk), now: now) {
                    ended[id] = chunk.first { $0.id == id }?.state
                }
            }
            try await Self.recordFulfillmentScans(
                db,
                settled.compactMap { finish in
                    guard ended[finish.id] == .applied, let match = finish.match, let scannedAt = finish.scannedAt else { return nil }
                    return (match.order, match.fulfillmentIdentifier, scannedAt)
                })
            for finish in sorted where finish.state == .unmatched {
                let (state, event) = try await self.finishCarrierEvent(db, finish, now: now)
                ended[finish.id] = state
                if let event { events.append(event) }
            }
            try await Self.appendEvents(db, events, at: Date(millisecondsSince1970: now))
            return ended
        }
        return finishes.map { ended[$0.id] }
    }

    /// Finishes events that end applied, ignored or failed, only while their claims hold (claimed again or finished,
    /// an event is another worker's); returns the ids finished.
    private static func settleCarrierEvents(_ db: any SQLDatabase, _ finishes: [CarrierEventFinish], now: Int64) async throws -> [Int64] {
        let rows = SQLBoundRows(
            .integer(finishes.map(\.id)), .integer(finishes.map { Int64($0.attempt) }), .text(finishes.map(\.state.rawValue)),
            .text(finishes.map(\.outcome)), .text(finishes.map { $0.match?.order.orderTypeIdentifier }),
            .text(finishes.map { $0.match?.order.orderIdentifier }), .text(finishes.map { $0.match?.fulfillmentIdentifier }))
        return try await db.raw(
            """
            UPDATE carrier_events SET state = v.column3, claimed_until = NULL, applied_at = \(bind: now), outcome = v.column4, \
            order_type_identifier = v.column5, order_identifier = v.column6, fulfillment_identifier = v.column7
            FROM \(rows)
            WHERE carrier_events.id = v.column1 AND carrier_events.attempts = v.column2 AND carrier_events.state = 'pending'
            RETURNING carrier_events.id
            """
        ).all().map { try $0.int64("id") }
    }

    /// The event's final state (`nil` when the claim no longer held), and `carrier.event_unmatched` when it is finished
    /// unmatched for the first time.
    private func finishCarrierEvent(_ db: any SQLDatabase, _ finish: CarrierEventFinish, now: Int64) async throws -> (CarrierEventState?, NewEvent?) {
        var final = finish.state
        var outcome = finish.outcome
        var unmatched: NewEvent?
        if finish.state == .unmatched {
            // The row lock makes an order write that gives a fulfillment this tracking number (which locks the events
            // it sets back to pending) either finish first, so the check below sees the fulfillment, or wait for this one.
            let claimed = try await db.raw(
                """
                SELECT merchant_id, tracking_number, connection_id, provider, carrier, order_reference, occurred_at, unmatched_at
                FROM carrier_events
                WHERE id = \(bind: finish.id) AND attempts = \(bind: finish.attempt) AND state = 'pending'\(unsafeRaw: backend.rowLockClause)
                """
            ).first()
            guard let claimed else { return (nil, nil) }
            if try claimed.decodeNil(column: "unmatched_at") {
                unmatched = NewEvent(
                    merchantID: try claimed.string("merchant_id"), type: .carrierEventUnmatched, order: nil,
                    data: [
                        "carrierEventId": .integer(finish.id), "connectionId": .string(try claimed.string("connection_id")),
                        "provider": .string(try claimed.string("provider")), "trackingNumber": .string(try claimed.string("tracking_number")),
                        "carrier": EventValue(try claimed.optionalString("carrier")),
                        "orderReference": EventValue(try claimed.optionalString("order_reference")),
                        "occurredAt": .string(try claimed.date("occurred_at").formatted(.iso8601)),
                    ])
            }
            let tracked = try await db.select().column("fulfillment_identifier").from("fulfillment_tracking")
                .where("merchant_id", .equal, try claimed.string("merchant_id"))
                .where("tracking_number", .equal, try claimed.string("tracking_number"))
                .limit(finish.candidates + 1)
                .all()
            if tracked.count > finish.candidates {
                final = .pending
                outcome = Self.carrierEventRequeuedOutcome
                unmatched = nil
            }
        }
        let appliedAt: Int64? = final == .pending ? nil : now
        // Only while the claim holds: claimed again (its lease ran out) or finished, the event is another worker's.
        let finished = try await db.update("carrier_events")
            .set("state", to: final.rawValue)
            .set("claimed_until", to: SQLLiteral.null)
            .set("applied_at", to: appliedAt)
            .set("outcome", to: outcome)
            .set("order_type_identifier", to: finish.match?.order.orderTypeIdentifier)
            .set("order_identifier", to: finish.match?.order.orderIdentifier)
            .set("fulfillment_identifier", to: finish.match?.fulfillmentIdentifier)
            .set(
                "unmatched_at",
                to: SQLFunction(
                    "COALESCE", args: SQLColumn("unmatched_at"), final == .unmatched ? SQLBind(now) as any SQLExpression : SQLLiteral.null)
            )
            .where("id", .equal, finish.id)
            .where("attempts", .equal, finish.attempt)
            .where("state", .equal, CarrierEventState.pending.rawValue)
            .returning("id")
            .first()
        guard finished != nil else { return (nil, nil) }
        return (final, unmatched)
    }

    /// Sets the merchant's unmatched events for these tracking numbers back to pending, inside the caller's
    /// transaction; returns how many. Pending events for them are locked too, so that a worker finishing one as
    /// unmatched waits for this transaction and then sees its fulfillments.
    func requeueUnmatchedCarrierEvents(_ db: any SQLDatabase, merchantID: String, trackingNumbers: [String]) async throws -> Int {
        guard !trackingNumbers.isEmpty else { return 0 }
        var requeued = 0
        for numbers in Set(trackingNumbers).sorted().chunked(into: Self.statementChunk) {
            let numbers = Array(numbers)
            if !backend.rowLockClause.isEmpty {
                try await db.raw(
                    """
                    SELECT id FROM carrier_events
                    WHERE merchant_id = \(bind: merchantID) AND tracking_number \(isIn: numbers) AND state IN ('pending', 'unmatched')
                    ORDER BY id\(unsafeRaw: backend.rowLockClause)
                    """
                ).run()
            }
            requeued += try await db.raw(
                """
                UPDATE carrier_events SET state = 'pending', claimed_until = NULL, applied_at = NULL, outcome = \(bind: Self.carrierEventRequeuedOutcome)
                WHERE merchant_id = \(bind: merchantID) AND tracking_number \(isIn: numbers) AND state = 'unmatched'
                RETURNING id
                """
            ).all().count
        }
        return requeued
    }

    /// The merchant's unmatched events for a tracking number, oldest first.
    public func unmatchedCarrierEvents(merchantID: String, trackingNumber: String) async throws -> [CarrierEventRecord] {
        let trackingNumber = Self.trimmedTrackingNumber(trackingNumber)
        return try await read("read unmatched carrier events of merchant \(merchantID)") { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.carrierEventColumns) FROM carrier_events
                WHERE merchant_id = \(bind: merchantID) AND tracking_number = \(bind: trackingNumber) AND state = 'unmatched'
                ORDER BY id
                """
            ).all().map(Self.carrierEvent(from:))
        }
    }

    /// The merchant's latest `limit` events, newest first.
    public func recentCarrierEvents(merchantID: String, limit: Int) async throws -> [CarrierEventRecord] {
        try await read("read recent carrier events of merchant \(merchantID)") { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.carrierEventColumns) FROM carrier_events
                WHERE merchant_id = \(bind: merchantID) ORDER BY id DESC LIMIT \(bind: limit)
                """
            ).all().map(Self.carrierEvent(from:))
        }
    }

    /// Deletes applied and ignored carrier events received before `date`, oldest first, at most 5,000 per
    /// transaction; returns the number deleted. Unmatched and failed events stay for the merchant to see.
    public func deleteCarrierEvents(before date: Date) async throws -> Int {
        let cutoff = date.millisecondsSince1970
        var deleted = 0
        while true {
            let batch = try await write("delete old carrier events") { db in
                try await db.raw(
                    """
                    DELETE FROM carrier_events WHERE id IN (
                        SELECT id FROM carrier_events WHERE state IN ('applied', 'ignored') AND received_at < \(bind: cutoff)
                        ORDER BY id LIMIT \(bind: Self.pruneBatch))
                    RETURNING id
                    """
                ).all().count
            }
            deleted += batch
            if batch < Self.pruneBatch { return deleted }
        }
    }

    /// Tracking numbers are compared exactly after dropping the whitespace around them: the server hands both sides in
    /// one normalized form (without case, spaces or hyphens).
    static func trimmedTrackingNumber(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func carrierEvent(from row: any SQLRow) throws -> CarrierEventRecord {
        let stateText = try row.string("state")
        guard let state = CarrierEventState(rawValue: stateText) else {
            throw OrderStoreError.corruptRecord(table: "carrier_events", reason: "unknown state '\(stateText)'")
        }
        let match = try row.optionalString("order_type_identifier").map { type in
            CarrierEventMatch(
                order: OrderKey(orderTypeIdentifier: type, orderIdentifier: try row.string("order_identifier")),
                fulfillmentIdentifier: try row.string("fulfillment_identifier"))
        }
        return CarrierEventRecord(
            id: try row.int64("id"), connectionID: try row.string("connection_id"), merchantID: try row.string("merchant_id"),
            idempotencyKey: try row.string("idempotency_key"), provider: try row.string("provider"),
            trackingNumber: try row.string("tracking_number"), carrier: try row.optionalString("carrier"),
            orderReference: try row.optionalString("order_reference"), occurredAt: try row.date("occurred_at"), event: try row.bytes("event"),
            state: state, attempts: try row.int("attempts"),
            claimedUntil: try row.decodeNil(column: "claimed_until") ? nil : try row.date("claimed_until"),
            receivedAt: try row.date("received_at"), appliedAt: try row.decodeNil(column: "applied_at") ? nil : try row.date("applied_at"),
            outcome: try row.optionalString("outcome"), match: match)
    }
}
