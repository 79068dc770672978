import SQLKit

/// Schema version 15: order defaults per order type. A merchant with two brands sets a different order-management URL
/// (or fulfillment type) for each; what a type leaves unset falls back to the merchant's own defaults. The rows go with
/// their order type.
enum OrderTypeDefaultsSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.create(table: "order_type_defaults")
            .column("order_type_identifier", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("order_management_url", type: .text)
            .column("fulfillment_type", type: .text)
            .column("payment_status", type: .text)
            .column("updated_at", type: .bigint, .notNull)
            .foreignKey(["order_type_identifier"], references: "order_types", ["order_type_identifier"], onDelete: .cascade)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
    }
}
