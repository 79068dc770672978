import SQLKit

/// Schema version 14: each merchant's default order type, used by a create that names none. Adding a second order
/// type (a second brand) then breaks no request that worked: the default is the first one configured, changeable.
/// Existing merchants get their earliest-configured order type.
enum DefaultOrderTypeSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "merchants").column("default_order_type", type: .text).run()
        try await db.raw(
            """
            UPDATE merchants SET default_order_type = (SELECT t.order_type_identifier FROM order_types t \
            WHERE t.merchant_id = merchants.id ORDER BY t.updated_at, t.order_type_identifier LIMIT 1)
            """
        ).run()
    }
}
