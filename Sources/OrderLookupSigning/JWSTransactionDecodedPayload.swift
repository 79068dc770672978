import JWTKit

/// The payload of a signed transaction, named and typed as Apple's `JWSTransactionDecodedPayload` (App Store Server
/// API), so Apple's libraries decode it unchanged. Dates are milliseconds since 1970; `price` is in milli-units of
/// `currency` (1990 = 1.99). Absent fields are left out of the JSON.
public struct JWSTransactionDecodedPayload: JWTPayload, Equatable {
    /// Stable identifier of this transaction (one per line item of an order).
    public var transactionId: String
    /// The first transaction of the purchase; equal to ``transactionId`` here, as nothing renews.
    public var originalTransactionId: String
    /// The bundle identifier of the lookup key that asked.
    public var bundleId: String
    /// The line item's SKU.
    public var productId: String
    /// When the order was placed, ms.
    public var purchaseDate: Int64
    /// When the order was placed, ms.
    public var originalPurchaseDate: Int64
    /// How many units the line item holds.
    public var quantity: Int
    /// The product type, one of Apple's: `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription`,
    /// `Non-Renewing Subscription`.
    public var type: String
    /// `PURCHASED` (or `FAMILY_SHARED`, which orders never are).
    public var inAppOwnershipType: String
    /// When the transaction was signed, ms; Apple's verifier checks the chain's validity at this time.
    public var signedDate: Int64
    /// `Production`: Apple's verifier compares it with its configured environment.
    public var environment: String
    /// `PURCHASE` (or `RENEWAL`, which orders never are).
    public var transactionReason: String
    /// The storefront's ISO 3166-1 alpha-3 country code.
    public var storefront: String
    /// The line item's unit price in milli-units of ``currency``; absent for an item without a price.
    public var price: Int64?
    /// ISO 4217 currency code of ``price``.
    public var currency: String?
    /// When the item was returned or refunded, ms.
    public var revocationDate: Int64?
    /// Why: `0` other (returned, refunded by the merchant), `1` an issue with the item.
    public var revocationReason: Int?

    /// A payload with every field; see the properties.
    public init(
        transactionId: String, originalTransactionId: String, bundleId: String, productId: String, purchaseDate: Int64,
        originalPurchaseDate: Int64, quantity: Int, type: String, inAppOwnershipType: String, signedDate: Int64,
        environment: String, transactionReason: String, storefront: String, price: Int64?, currency: String?,
        revocationDate: Int64?, revocationReason: Int?
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.bundleId = bundleId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.quantity = quantity
        self.type = type
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.environment = environment
        self.transactionReason = transactionReason
        self.storefront = storefront
        self.price = price
        self.currency = currency
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
    }

    /// Signed transactions carry no claims to check: the verifier checks the chain, the bundle and the environment.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
