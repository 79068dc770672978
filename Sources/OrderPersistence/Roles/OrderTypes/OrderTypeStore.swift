import Foundation

/// The merchants' order types with their signing identities, the default one, and their order defaults.
///
/// All methods throw ``OrderStoreError``.
public protocol OrderTypeStore: Sendable {
    /// Creates or replaces an order type; a new signing identity drops the type's cached packages, which carry the old
    /// signature, so that every instance rebuilds them. Throws ``OrderStoreError/orderTypeOwnedByAnotherMerchant(orderTypeIdentifier:)``
    /// if another merchant already owns the identifier.
    func upsertOrderType(_ record: OrderTypeRecord) async throws
    /// The order type with this identifier, or `nil` when none is configured.
    func orderType(_ orderTypeIdentifier: String) async throws -> OrderTypeRecord?
    /// A merchant's order types, sorted by identifier.
    func orderTypes(merchantID: String) async throws -> [OrderTypeRecord]
    /// The merchant's default order type, which a created order without `orderTypeIdentifier` gets.
    func defaultOrderType(merchantID: String) async throws -> String?
    /// Makes one of the merchant's order types its default; throws ``OrderStoreError/orderTypeNotFound(orderTypeIdentifier:)``.
    func setDefaultOrderType(merchantID: String, orderTypeIdentifier: String) async throws
    /// Deletes a merchant's order type; with orders only when `force` (they are deleted with it).
    func deleteOrderType(_ orderTypeIdentifier: String, merchantID: String, force: Bool) async throws -> DeletionSummary
    /// Sets a merchant's order defaults, merchant-wide or for one of its order types, replacing any earlier ones.
    /// Throws ``OrderStoreError/orderTypeNotFound(orderTypeIdentifier:)`` for an order type the merchant lacks.
    func putOrderDefaults(_ record: MerchantOrderDefaultsRecord) async throws
    /// In one read, the merchant-wide order defaults and, with `orderTypeIdentifier`, that order type's: whichever
    /// were ever set, merchant-wide first.
    func orderDefaults(merchantID: String, orderTypeIdentifier: String?) async throws -> [MerchantOrderDefaultsRecord]
}
