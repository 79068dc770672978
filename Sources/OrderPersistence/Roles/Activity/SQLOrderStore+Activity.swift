import Foundation
import SQLKit

extension SQLOrderStore {
    static let activityColumns = [
        "order_type_identifier", "order_identifier", "kind", "version", "author", "detail", "status", "at", "key_id", "key_name", "address", "diff",
        "occurrences",
    ]

    /// The largest batch ``appendActivity(_:)`` inserts per statement: 13 binds a row stays far below SQLite's and
    /// PostgreSQL's bind limits.
    static let activityBatch = 500

    /// Appends entries recorded outside a change's transaction (package fetches, written behind), in one transaction,
    /// with the fetches' insight counts.
    public func appendActivity(_ entries: [OrderActivity]) async throws {
        guard !entries.isEmpty else { return }
        var insights = InsightTally()
        for entry in entries where entry.kind == .fetched {
            insights.add(.packageFetches, entry.orderTypeIdentifier, at: entry.at, Int64(entry.occurrences))
        }
        try await write("append \(entries.count) activity entries") { db in
            for chunk in entries.chunked(into: Self.activityBatch) { try await Self.insertActivity(db, chunk) }
            try await Self.recordInsights(db, insights)
        }
    }

    /// Inserts activity in the caller's transaction: changes and registrations record theirs with the change itself.
    static func insertActivity(_ db: any SQLDatabase, _ entries: some Collection<OrderActivity>) async throws {
        guard !entries.isEmpty else { return }
        let rows = SQLBoundRows(
            .text(entries.map(\.orderTypeIdentifier)), .text(entries.map(\.orderIdentifier)), .text(entries.map(\.kind.rawValue)),
            .integer(entries.map { $0.version.map(Int64.init) }), .text(entries.map(\.author)), .text(entries.map(\.detail)),
            .integer(entries.map { $0.status.map(Int64.init) }), .integer(entries.map { $0.at.millisecondsSince1970 }), .text(entries.map(\.keyID)),
            .text(entries.map(\.keyName)), .text(entries.map(\.address)), .text(entries.map(\.diff)),
            .integer(entries.map { Int64($0.occurrences) }))
        try await db.raw("\(unsafeRaw: activityInsert) FROM \(rows)").run()
    }

    /// The insert of ``insertActivity(_:_:)`` but its rows, spelled once rather than on every order write.
    private static let activityInsert = """
        INSERT INTO order_activity (\(activityColumns.joined(separator: ", ")))
        SELECT \(activityColumns.indices.map { "v.column\($0 + 1)" }.joined(separator: ", "))
        """

    /// The most recent `limit` activity entries of an order, newest first.
    ///
    /// - Throws: ``OrderStoreError/corruptRecord(table:reason:)`` for a kind this build does not know.
    public func orderActivity(orderTypeIdentifier: String, orderIdentifier: String, limit: Int) async throws -> [OrderActivity] {
        try await activity(
            "read activity of \(orderTypeIdentifier)/\(orderIdentifier)", orderTypeIdentifier, orderIdentifier, kinds: nil, limit: limit)
    }

    /// The most recent `limit` changes of an order (its creation and updates, each with who, where from and the diff),
    /// newest first: the order's audit trail.
    public func orderHistory(orderTypeIdentifier: String, orderIdentifier: String, limit: Int) async throws -> [OrderActivity] {
        try await activity(
            "read history of \(orderTypeIdentifier)/\(orderIdentifier)", orderTypeIdentifier, orderIdentifier, kinds: [.created, .updated],
            limit: limit)
    }

    private func activity(_ operation: String, _ orderTypeIdentifier: String, _ orderIdentifier: String, kinds: [OrderActivity.Kind]?, limit: Int)
        async throws -> [OrderActivity]
    {
        try await read(operation) { db in
            let query = db.select().column("id").columns(Self.activityColumns).from("order_activity")
                .where("order_type_identifier", .equal, orderTypeIdentifier).where("order_identifier", .equal, orderIdentifier)
            if let kinds { query.where("kind", .in, kinds.map(\.rawValue)) }
            let rows = try await query.orderBy("id", .descending).limit(limit).all()
            return try rows.map { row in
                let kind = try row.string("kind")
                guard let known = OrderActivity.Kind(rawValue: kind) else {
                    throw OrderStoreError.corruptRecord(table: "order_activity", reason: "unknown kind '\(kind)'")
                }
                return OrderActivity(
                    id: try row.int64("id"), orderTypeIdentifier: try row.string("order_type_identifier"),
                    orderIdentifier: try row.string("order_identifier"), kind: known,
                    version: try row.decodeNil(column: "version") ? nil : try row.int("version"), author: try row.optionalString("author"),
                    detail: try row.optionalString("detail"), status: try row.decodeNil(column: "status") ? nil : try row.int("status"),
                    at: try row.date("at"), keyID: try row.optionalString("key_id"), keyName: try row.optionalString("key_name"),
                    address: try row.optionalString("address"), diff: try row.optionalString("diff"),
                    occurrences: try row.decodeNil(column: "occurrences") ? 1 : try row.int("occurrences"))
            }
        }
    }

    /// The id of the order's latest activity entry (0 before any), from the activity's order index.
    public func latestActivityID(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int64 {
        try await read("read the latest activity of \(orderTypeIdentifier)/\(orderIdentifier)") { db in
            try await db.select()
                .column(SQLFunction("COALESCE", args: SQLFunction("MAX", args: SQLColumn("id")), SQLLiteral.numeric("0")), as: "latest")
                .from("order_activity")
                .where("order_type_identifier", .equal, orderTypeIdentifier).where("order_identifier", .equal, orderIdentifier)
                .first(decodingColumn: "latest", as: Int64.self) ?? 0
        }
    }

    /// Deletes activity recorded before `date`, in batches; returns the number deleted.
    public func deleteActivity(before date: Date) async throws -> Int {
        try await deleteOldest(from: "order_activity", before: date, operation: "delete old order activity")
    }
}
