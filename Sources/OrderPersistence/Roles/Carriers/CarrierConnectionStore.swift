import Foundation

/// The merchants' connections to carrier tracking aggregators, whose signed webhooks update their orders.
///
/// All methods throw ``OrderStoreError``.
public protocol CarrierConnectionStore: Sendable {
    /// Stores a new connection, its secret sealed with the master key.
    /// Throws ``OrderStoreError/merchantNotFound(id:)``.
    func addCarrierConnection(_ record: CarrierConnectionRecord) async throws
    /// The merchant's connections, oldest first.
    func carrierConnections(merchantID: String) async throws -> [CarrierConnectionRecord]
    /// The connection with this id, whichever merchant's (the webhook route knows only the id), or `nil`.
    func carrierConnection(id: String) async throws -> CarrierConnectionRecord?
    /// Deletes one of the merchant's connections with its events; `false` if the merchant has none with this id
    /// (another merchant's connection is left alone).
    func deleteCarrierConnection(merchantID: String, id: String) async throws -> Bool
}
