import Foundation
import SQLKit

extension SQLOrderStore {
    static let trackedFulfillmentColumns =
        "order_type_identifier, order_identifier, fulfillment_identifier, merchant_id, tracking_number, carrier, last_scan_at"

    /// Makes `entries` the order's tracked fulfillments and sets the unmatched events for their tracking numbers back to
    /// pending; returns how many. See ``FulfillmentTrackingStore/replaceFulfillmentTracking(order:merchantID:entries:)``.
    ///
    /// - Throws: ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)`` when the merchant has no such
    ///   order, ``OrderStoreError/invalidArgument(name:reason:)`` when two entries name the same fulfillment.
    @discardableResult
    public func replaceFulfillmentTracking(order: OrderKey, merchantID: String, entries: [FulfillmentTrackingEntry]) async throws -> Int {
        try await write("replace tracking numbers of \(order.orderTypeIdentifier)/\(order.orderIdentifier)") { db in
            let owner = try await db.select().column("merchant_id").from("orders")
                .where("order_type_identifier", .equal, order.orderTypeIdentifier).where("order_identifier", .equal, order.orderIdentifier)
                .first(decodingColumn: "merchant_id", as: String.self)
            guard owner == merchantID else {
                throw OrderStoreError.orderNotFound(orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier)
            }
            return try await self.replaceFulfillmentTracking(db, order: order, merchantID: merchantID, entries: entries)
        }
    }

    /// The same inside the caller's transaction, for an order write that knows the order is the merchant's: its
    /// fulfillments' tracking numbers then change with the order, atomically.
    @discardableResult
    func replaceFulfillmentTracking(_ db: any SQLDatabase, order: OrderKey, merchantID: String, entries: [FulfillmentTrackingEntry])
        async throws -> Int
    {
        let entries = entries.map {
            FulfillmentTrackingEntry(
                fulfillmentIdentifier: $0.fulfillmentIdentifier, trackingNumber: Self.trimmedTrackingNumber($0.trackingNumber), carrier: $0.carrier)
        }
        .filter { !$0.trackingNumber.isEmpty }
        let identifiers = entries.map(\.fulfillmentIdentifier)
        guard Set(identifiers).count == identifiers.count else {
            throw OrderStoreError.invalidArgument(name: "entries", reason: "a fulfillment is listed twice")
        }
        let orderRows = SQLQueryString(
            "order_type_identifier = \(bind: order.orderTypeIdentifier) AND order_identifier = \(bind: order.orderIdentifier)")
        if identifiers.isEmpty {
            try await db.raw("DELETE FROM fulfillment_tracking WHERE \(orderRows)").run()
        } else {
            try await db.raw("DELETE FROM fulfillment_tracking WHERE \(orderRows) AND fulfillment_identifier NOT IN (\(binds: identifiers))").run()
        }
        for entry in entries {
            // A new tracking number is a new parcel: the last scan of the old one says nothing about it.
            try await db.raw(
                """
                INSERT INTO fulfillment_tracking (order_type_identifier, order_identifier, fulfillment_identifier, merchant_id, tracking_number, carrier)
                VALUES (\(bind: order.orderTypeIdentifier), \(bind: order.orderIdentifier), \(bind: entry.fulfillmentIdentifier), \(bind: merchantID),
                    \(bind: entry.trackingNumber), \(bind: entry.carrier))
                ON CONFLICT (order_type_identifier, order_identifier, fulfillment_identifier) DO UPDATE SET
                    merchant_id = excluded.merchant_id,
                    carrier = excluded.carrier,
                    last_scan_at = CASE WHEN fulfillment_tracking.tracking_number = excluded.tracking_number
                        THEN fulfillment_tracking.last_scan_at ELSE NULL END,
                    tracking_number = excluded.tracking_number
                """
            ).run()
        }
        return try await requeueUnmatchedCarrierEvents(db, merchantID: merchantID, trackingNumbers: entries.map(\.trackingNumber))
    }

    /// The merchant's fulfillments with this tracking number.
    public func trackedFulfillments(merchantID: String, trackingNumber: String) async throws -> [TrackedFulfillment] {
        try await read("find fulfillments by tracking number for merchant \(merchantID)") { db in
            try await db.raw(Self.trackingLookupQuery(merchantID: merchantID, trackingNumber: trackingNumber)).all()
                .map(Self.trackedFulfillment(from:))
        }
    }

    /// The lookup of a tracking number, as one statement (the query plan test explains it).
    static func trackingLookupQuery(merchantID: String, trackingNumber: String) -> SQLQueryString {
        """
        SELECT \(unsafeRaw: Self.trackedFulfillmentColumns) FROM fulfillment_tracking
        WHERE merchant_id = \(bind: merchantID) AND tracking_number = \(bind: Self.trimmedTrackingNumber(trackingNumber))
        ORDER BY order_type_identifier, order_identifier, fulfillment_identifier
        """
    }

    /// The merchant's fulfillments with these tracking numbers and their orders, a join per chunk of numbers.
    public func trackedOrders(merchantID: String, trackingNumbers: [String]) async throws -> [TrackedOrder] {
        let numbers = Set(trackingNumbers.map(Self.trimmedTrackingNumber)).sorted()
        guard !numbers.isEmpty else { return [] }
        return try await read("find the orders of \(numbers.count) tracking numbers for merchant \(merchantID)") { db in
            var found: [TrackedOrder] = []
            for chunk in numbers.chunked(into: Self.statementChunk) {
                // The order's own columns under their names, so one row decodes as both records.
                let rows = try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.orderColumns.map { "o." + $0 }.joined(separator: ", ")),
                        t.fulfillment_identifier, t.tracking_number, t.carrier, t.last_scan_at
                    FROM fulfillment_tracking t JOIN orders o
                        ON o.order_type_identifier = t.order_type_identifier AND o.order_identifier = t.order_identifier
                        AND o.merchant_id = t.merchant_id
                    WHERE t.merchant_id = \(bind: merchantID) AND t.tracking_number \(isIn: Array(chunk))
                    ORDER BY t.tracking_number, t.order_type_identifier, t.order_identifier, t.fulfillment_identifier
                    """
                ).all()
                found += try rows.map { TrackedOrder(fulfillment: try Self.trackedFulfillment(from: $0), order: try Self.order(from: $0)) }
            }
            return found
        }
    }

    /// The order's tracked fulfillments, by fulfillment identifier.
    public func trackedFulfillments(order: OrderKey) async throws -> [TrackedFulfillment] {
        try await read("read tracking numbers of \(order.orderTypeIdentifier)/\(order.orderIdentifier)") { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.trackedFulfillmentColumns) FROM fulfillment_tracking
                WHERE order_type_identifier = \(bind: order.orderTypeIdentifier) AND order_identifier = \(bind: order.orderIdentifier)
                ORDER BY fulfillment_identifier
                """
            ).all().map(Self.trackedFulfillment(from:))
        }
    }

    /// Records a scan of `at` on the fulfillment unless a later one was recorded; `true` when it was.
    @discardableResult
    public func recordFulfillmentScan(order: OrderKey, fulfillmentIdentifier: String, at date: Date) async throws -> Bool {
        try await writeStatement("record a scan of \(order.orderTypeIdentifier)/\(order.orderIdentifier)") { db in
            let key = FulfillmentKey(order: order, fulfillmentIdentifier: fulfillmentIdentifier)
            return try await Self.recordFulfillmentScans(db, [(order, fulfillmentIdentifier, date)]).contains(key)
        }
    }

    /// Records scans as ``recordFulfillmentScan(order:fulfillmentIdentifier:at:)`` does, inside the caller's
    /// transaction, a statement per chunk; of several scans of one fulfillment the latest counts. Returns the
    /// fulfillments whose scan was recorded.
    @discardableResult
    static func recordFulfillmentScans(_ db: any SQLDatabase, _ scans: [(order: OrderKey, fulfillmentIdentifier: String, at: Date)])
        async throws -> Set<FulfillmentKey>
    {
        var latest: [FulfillmentKey: Int64] = [:]
        for scan in scans {
            let key = FulfillmentKey(order: scan.order, fulfillmentIdentifier: scan.fulfillmentIdentifier)
            latest[key] = max(latest[key] ?? .min, scan.at.millisecondsSince1970)
        }
        var recorded = Set<FulfillmentKey>()
        for chunk in latest.sorted(by: { $0.key < $1.key }).chunked(into: statementChunk) {
            let rows = chunk.map { key, at -> SQLQueryString in
                "(\(bind: key.order.orderTypeIdentifier), \(bind: key.order.orderIdentifier), \(bind: key.fulfillmentIdentifier), \(bind: at))"
            }
            let written = try await db.raw(
                """
                UPDATE fulfillment_tracking SET last_scan_at = v.column4 FROM (VALUES \(rows.joined(separator: ", "))) AS v
                WHERE fulfillment_tracking.order_type_identifier = v.column1 AND fulfillment_tracking.order_identifier = v.column2
                    AND fulfillment_tracking.fulfillment_identifier = v.column3
                    AND (fulfillment_tracking.last_scan_at IS NULL OR fulfillment_tracking.last_scan_at <= v.column4)
                RETURNING order_type_identifier, order_identifier, fulfillment_identifier
                """
            ).all()
            for row in written {
                recorded.insert(
                    FulfillmentKey(
                        order: OrderKey(
                            orderTypeIdentifier: try row.string("order_type_identifier"), orderIdentifier: try row.string("order_identifier")),
                        fulfillmentIdentifier: try row.string("fulfillment_identifier")))
            }
        }
        return recorded
    }

    /// A fulfillment of an order.
    struct FulfillmentKey: Hashable, Comparable {
        var order: OrderKey
        var fulfillmentIdentifier: String

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.order.orderTypeIdentifier, lhs.order.orderIdentifier, lhs.fulfillmentIdentifier)
                < (rhs.order.orderTypeIdentifier, rhs.order.orderIdentifier, rhs.fulfillmentIdentifier)
        }
    }

    static func trackedFulfillment(from row: any SQLRow) throws -> TrackedFulfillment {
        TrackedFulfillment(
            order: OrderKey(orderTypeIdentifier: try row.string("order_type_identifier"), orderIdentifier: try row.string("order_identifier")),
            merchantID: try row.string("merchant_id"),
            entry: FulfillmentTrackingEntry(
                fulfillmentIdentifier: try row.string("fulfillment_identifier"), trackingNumber: try row.string("tracking_number"),
                carrier: try row.optionalString("carrier")),
            lastScanAt: try row.decodeNil(column: "last_scan_at") ? nil : try row.date("last_scan_at"))
    }
}
