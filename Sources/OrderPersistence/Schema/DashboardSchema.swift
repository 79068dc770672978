import Foundation
import SQLKit

/// Schema version 4: dashboard sign-in sessions, shared by every instance on the same database; each order's order
/// number as a column, so that people can find an order by the number its customer quotes; and an index for the
/// dashboard's "has anything changed" question.
enum DashboardSchema {
    /// Orders whose order numbers are filled in per transaction statement batch.
    static let backfillBatch = 500

    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // Only the SHA-256 of a session id is stored: a copy of the table signs nobody in.
        try await db.create(table: "dashboard_sessions")
            .column("id_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        // Retention deletes expired sessions by this index.
        try await db.create(index: "dashboard_sessions_expires").on("dashboard_sessions").column("expires_at").run()

        try await db.alter(table: "orders").column("order_number", type: .text).run()
        try await db.create(index: "orders_merchant_order_number").on("orders").column("merchant_id").column("order_number").run()
        // The dashboard asks every few seconds for a merchant's latest change: one index lookup.
        try await db.create(index: "orders_merchant_changes").on("orders").column("merchant_id").column("change_sequence").run()
        try await backfillOrderNumbers(db)
    }

    /// Reads `orderNumber` out of every existing order's document, in creation order a batch at a time.
    static func backfillOrderNumbers(_ db: any SQLDatabase) async throws {
        var after: Int64 = -1
        while true {
            let rows = try await db.select().columns("order_type_identifier", "order_identifier", "document", "created_sequence").from("orders")
                .where("created_sequence", .greaterThan, after)
                .orderBy("created_sequence")
                .limit(backfillBatch)
                .all()
            guard let last = rows.last else { return }
            after = try last.int64("created_sequence")
            for row in rows {
                // A document that is not a JSON object (none the server writes) just stays unsearchable by number.
                let document = (try? JSONSerialization.jsonObject(with: Data(try row.bytes("document")))) as? [String: Any]
                guard let orderNumber = document?["orderNumber"] as? String else { continue }
                try await db.update("orders").set("order_number", to: orderNumber)
                    .where("order_type_identifier", .equal, try row.string("order_type_identifier"))
                    .where("order_identifier", .equal, try row.string("order_identifier"))
                    .run()
            }
        }
    }
}
