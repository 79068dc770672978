import Foundation
import SQLKit

extension SQLOrderStore {
    /// Deletes one of a merchant's order types. With orders it is refused unless `force`; forced, its orders go with it,
    /// and with them their registrations, cached packages, wallet links, queued pushes, push log and activity, all in
    /// one transaction (devices of those orders get no further updates).
    ///
    /// - Throws: ``OrderStoreError/orderTypeNotFound(orderTypeIdentifier:)`` when the merchant has no such order type
    ///   (whether or not another merchant does), ``OrderStoreError/stillHasOrders(subject:count:)`` without `force`.
    public func deleteOrderType(_ orderTypeIdentifier: String, merchantID: String, force: Bool) async throws -> DeletionSummary {
        try await write("delete order type \(orderTypeIdentifier)") { db in
            let owner = try await db.select().column("merchant_id").from("order_types")
                .where("order_type_identifier", .equal, orderTypeIdentifier).first()
            guard let owner, try owner.string("merchant_id") == merchantID else {
                throw OrderStoreError.orderTypeNotFound(orderTypeIdentifier: orderTypeIdentifier)
            }
            let orders = try await Self.count(db, "orders", where: "order_type_identifier", orderTypeIdentifier)
            guard orders == 0 || force else { throw OrderStoreError.stillHasOrders(subject: "order type \(orderTypeIdentifier)", count: orders) }
            try await Self.deleteOrderTypes(db, [orderTypeIdentifier])
            return DeletionSummary(orderTypes: 1, orders: orders)
        }
    }

    /// Deletes a merchant with its API keys, order types, assets, Apple Pay and lookup keys, sessions and settings. With
    /// orders it is refused unless `force`; forced, the orders go as in ``deleteOrderType(_:merchantID:force:)``.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``, ``OrderStoreError/stillHasOrders(subject:count:)`` without `force`.
    public func deleteMerchant(id: String, force: Bool) async throws -> DeletionSummary {
        try await write("delete merchant \(id)") { db in
            try await Self.requireMerchant(db, id)
            let types = try await db.select().column("order_type_identifier").from("order_types").where("merchant_id", .equal, id).all()
                .map { try $0.string("order_type_identifier") }
            let orders = try await Self.count(db, "orders", where: "merchant_id", id)
            guard orders == 0 || force else { throw OrderStoreError.stillHasOrders(subject: "merchant \(id)", count: orders) }
            try await Self.deleteOrderTypes(db, types)
            // Every other row of the merchant goes by ON DELETE CASCADE.
            try await db.delete(from: "merchants").where("id", .equal, id).run()
            return DeletionSummary(orderTypes: types.count, orders: orders)
        }
    }

    static func count(_ db: any SQLDatabase, _ table: String, where column: String, _ value: String) async throws -> Int {
        try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(table)
            .where(SQLIdentifier(column), .equal, SQLBind(value))
            .first(decodingColumn: "n", as: Int.self) ?? 0
    }

    /// Deletes order types and everything keyed by them: the push outbox (its fan-outs too), push log and activity have
    /// no foreign key (they outlive an order's row on purpose), the rest goes by ON DELETE CASCADE from `order_types`
    /// and `orders`.
    static func deleteOrderTypes(_ db: any SQLDatabase, _ types: [String]) async throws {
        guard !types.isEmpty else { return }
        try await db.update("merchants").set("default_order_type", to: SQLLiteral.null).where("default_order_type", .in, types).run()
        for table in ["push_jobs", "push_fanouts", "push_log", "order_activity", "order_types"] {
            try await db.delete(from: table).where("order_type_identifier", .in, types).run()
        }
    }
}

/// What a deletion removed.
public struct DeletionSummary: Sendable, Hashable {
    /// Order types deleted.
    public var orderTypes: Int
    /// Orders deleted with them.
    public var orders: Int

    /// A summary with both counts.
    public init(orderTypes: Int, orders: Int) {
        self.orderTypes = orderTypes
        self.orders = orders
    }
}
