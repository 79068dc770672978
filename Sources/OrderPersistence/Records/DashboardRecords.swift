import Foundation

/// A signed-in dashboard user: which merchant, and until when. The session id itself is never stored, only its
/// SHA-256, so a leaked database or backup cannot be replayed as a cookie.
public struct DashboardSessionRecord: Sendable, Hashable {
    /// Lowercase hex SHA-256 of the session id the cookie carries.
    public var idHash: String
    /// The merchant the session acts for.
    public var merchantID: String
    /// The id of the API key that opened the session.
    public var apiKeyID: String
    /// The SHA-256 of the secret that opened it: once the key is rotated (or revoked), the session ends.
    public var apiKeyHash: String
    /// Millisecond precision; the store truncates finer values.
    public var createdAt: Date
    /// After this instant the session no longer signs anybody in.
    public var expiresAt: Date

    /// A session record to pass to ``DashboardSessionStore/createDashboardSession(_:)``.
    public init(idHash: String, merchantID: String, apiKeyID: String, apiKeyHash: String, createdAt: Date, expiresAt: Date) {
        self.idHash = idHash
        self.merchantID = merchantID
        self.apiKeyID = apiKeyID
        self.apiKeyHash = apiKeyHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A session as each request finds it: the record and the state of the key that opened it.
public struct LiveDashboardSession: Sendable, Hashable {
    /// The stored session.
    public var record: DashboardSessionRecord
    /// The key's expiry, if it has one: a session ends with its key.
    public var apiKeyExpiresAt: Date?
}

/// An order's identity: its type and its identifier within the type.
public struct OrderKey: Sendable, Hashable {
    /// The order's `orderTypeIdentifier`.
    public var orderTypeIdentifier: String
    /// The order's `orderIdentifier`.
    public var orderIdentifier: String

    /// The key of one order.
    public init(orderTypeIdentifier: String, orderIdentifier: String) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
    }
}

extension OrderRecord {
    /// The order's type and identifier.
    public var key: OrderKey { OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier) }
}
