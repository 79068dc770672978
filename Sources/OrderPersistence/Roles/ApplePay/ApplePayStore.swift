import Foundation

/// The merchants' Apple Pay configuration: payment-processing identities and the Merchant Identity.
///
/// All methods throw ``OrderStoreError``.
public protocol ApplePayStore: Sendable {
    /// Stores a payment-processing identity; the same public key again answers the identity stored first.
    func addPaymentIdentity(_ record: PaymentIdentityRecord) async throws -> PaymentIdentityRecord
    /// The merchant's payment-processing identities, oldest first.
    func paymentIdentities(merchantID: String) async throws -> [PaymentIdentityRecord]
    /// Deletes one of the merchant's payment-processing identities; `false` if it has none with this id.
    func deletePaymentIdentity(merchantID: String, id: String) async throws -> Bool
    /// Creates or replaces the merchant's Merchant Identity certificate for merchant validation.
    func putApplePayMerchantIdentity(_ record: ApplePayMerchantIdentityRecord) async throws
    /// The merchant's Merchant Identity configuration, or `nil` when it has none.
    func applePayMerchantIdentity(merchantID: String) async throws -> ApplePayMerchantIdentityRecord?
}
