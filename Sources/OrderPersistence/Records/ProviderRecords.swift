import Foundation

/// A merchant's defaults for what the payment providers' simplified order form lacks and Wallet requires, for all its
/// order types or for one.
public struct MerchantOrderDefaultsRecord: Sendable, Hashable {
    /// The merchant the defaults belong to.
    public var merchantID: String
    /// The order type they apply to; `nil` for the merchant-wide defaults, which fill what a type's leave unset.
    public var orderTypeIdentifier: String?
    /// `orderManagementURL` of orders that name none.
    public var orderManagementURL: String?
    /// `fulfillmentType` of fulfillments that name none.
    public var fulfillmentType: String?
    /// `payment.status` of a `total` given without one.
    public var paymentStatus: String?
    /// When the defaults were last set.
    public var updatedAt: Date

    /// The defaults of one merchant, or of one of its order types; `nil` leaves a field without default.
    public init(
        merchantID: String, orderTypeIdentifier: String? = nil, orderManagementURL: String?, fulfillmentType: String?, paymentStatus: String?,
        updatedAt: Date
    ) {
        self.merchantID = merchantID
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderManagementURL = orderManagementURL
        self.fulfillmentType = fulfillmentType
        self.paymentStatus = paymentStatus
        self.updatedAt = updatedAt
    }
}

/// A "Track in Wallet" link: whoever holds its token gets the order's current signed package until it expires or is
/// revoked, carrying a device token of the link's own. Only the SHA-256 of each token is stored.
public struct WalletLinkRecord: Sendable, Hashable {
    /// The link's public identifier, for revoking it; not a secret.
    public var id: String
    /// Lowercase hex SHA-256 of the token in the link's URL.
    public var tokenHash: String
    /// Lowercase hex SHA-256 of the device token the link's packages carry; `nil` for a link made before links had
    /// one and not opened since.
    public var deviceTokenHash: String?
    /// The merchant whose order the link opens.
    public var merchantID: String
    /// The order the link opens.
    public var order: OrderKey
    /// Millisecond precision; the store truncates finer values.
    public var createdAt: Date
    /// After this instant the link opens nothing.
    public var expiresAt: Date
    /// When the merchant revoked the link, if it did.
    public var revokedAt: Date?
    /// Whether the link opens once only: its first download uses it up.
    public var singleUse: Bool
    /// When a single-use link was used.
    public var usedAt: Date?

    /// A link record to pass to ``WalletLinkStore/createWalletLink(_:)``.
    public init(
        id: String, tokenHash: String, deviceTokenHash: String?, merchantID: String, order: OrderKey, createdAt: Date, expiresAt: Date,
        revokedAt: Date? = nil, singleUse: Bool = false, usedAt: Date? = nil
    ) {
        self.singleUse = singleUse
        self.usedAt = usedAt
        self.id = id
        self.tokenHash = tokenHash
        self.deviceTokenHash = deviceTokenHash
        self.merchantID = merchantID
        self.order = order
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}
