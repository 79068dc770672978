import Foundation

/// The merchants: what the administration, the CLI and a dashboard session read and create.
///
/// All methods throw ``OrderStoreError``.
public protocol MerchantStore: Sendable {
    /// Creates a merchant with a new random UUID.
    func createMerchant(name: String) async throws -> MerchantRecord
    /// The merchant with this id, or `nil`.
    func merchant(id: String) async throws -> MerchantRecord?
    /// Every merchant, oldest first.
    func merchants() async throws -> [MerchantRecord]
    /// Deletes a merchant and everything it owns; with orders only when `force`.
    func deleteMerchant(id: String, force: Bool) async throws -> DeletionSummary
}
