import Foundation

/// Order lookup for the App Store: merchants' lookup keys, the deployment's signing chain and the orders an order id names.
///
/// All methods throw ``OrderStoreError``.
public protocol LookupStore: Sendable {
    /// Stores a new order-lookup key (public half only).
    func addLookupKey(_ record: LookupKeyRecord) async throws
    /// The lookup key with this id, revoked or not, whatever its merchant.
    func lookupKey(id keyID: String) async throws -> LookupKeyRecord?
    /// The merchant's lookup keys, revoked ones included, oldest first.
    func lookupKeys(merchantID: String) async throws -> [LookupKeyRecord]
    /// Revokes one of the merchant's lookup keys; `nil` when it has none with this id.
    func revokeLookupKey(merchantID: String, keyID: String, at date: Date) async throws -> LookupKeyRecord?
    /// The deployment's transaction-signing chain, or `nil` before one is stored.
    func lookupSigningChain() async throws -> LookupSigningChainRecord?
    /// Stores the deployment's chain unless one is stored already; answers the stored one.
    func storeLookupSigningChainIfAbsent(_ record: LookupSigningChainRecord) async throws -> LookupSigningChainRecord
    /// The merchant's orders whose order number, else order identifier, is `orderID`, oldest first, at most `limit`:
    /// orders stored before numbers were unique, or of several order types, may share a number.
    func orders(merchantID: String, orderNumberOrIdentifier orderID: String, limit: Int) async throws -> [OrderRecord]
}
