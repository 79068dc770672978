import Foundation

/// A merchant: the tenant that owns order types, orders, API keys and assets.
public struct MerchantRecord: Sendable, Hashable, Codable {
    /// Lowercase UUID string.
    public var id: String
    public var name: String
    public var createdAt: Date

    public init(id: String, name: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}

/// Display metadata of a merchant API key. The key itself is never stored, only its SHA-256.
public struct APIKeyInfo: Sendable, Hashable {
    public var merchantID: String
    /// The first characters of the key, so an operator can tell keys apart.
    public var prefix: String
    public var createdAt: Date

    public init(merchantID: String, prefix: String, createdAt: Date) {
        self.merchantID = merchantID
        self.prefix = prefix
        self.createdAt = createdAt
    }
}

/// Where the signing identity of an order type comes from.
public enum IdentityConfig: Sendable, Hashable, Codable {
    /// PEM files on disk: certificate, private key (optionally encrypted) and optional WWDR intermediate.
    case files(certificatePath: String, keyPath: String, keyPassword: String?, wwdrPath: String?)
    /// A PKCS#12 bundle stored in the database.
    case pkcs12(bytes: [UInt8], password: String, wwdrPEM: String?)
    /// A directory holding the identity files under conventional names.
    case directory(path: String)
}

/// APNs token authentication: a `.p8` key from the developer account with its key and team identifiers.
public struct APNsTokenConfig: Sendable, Hashable, Codable {
    public var p8PEM: String
    public var keyID: String
    public var teamID: String

    public init(p8PEM: String, keyID: String, teamID: String) {
        self.p8PEM = p8PEM
        self.keyID = keyID
        self.teamID = teamID
    }
}

/// An order type (the APNs topic and `orderTypeIdentifier`) and how its packages are signed and pushed.
public struct OrderTypeRecord: Sendable, Hashable {
    public var orderTypeIdentifier: String
    public var merchantID: String
    public var identity: IdentityConfig
    /// Push with a provider token instead of the Order Type ID certificate (the default).
    public var apnsToken: APNsTokenConfig?

    public init(orderTypeIdentifier: String, merchantID: String, identity: IdentityConfig, apnsToken: APNsTokenConfig? = nil) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.merchantID = merchantID
        self.identity = identity
        self.apnsToken = apnsToken
    }
}

/// One stored order: its `order.json` bytes plus the bookkeeping the web service needs.
public struct OrderRecord: Sendable, Hashable {
    public var orderTypeIdentifier: String
    public var orderIdentifier: String
    public var merchantID: String
    public var authenticationToken: String
    /// The `order.json` bytes.
    public var document: [UInt8]
    /// The order status extracted from the document by the caller, for filtering lists.
    public var status: String?
    public var createdAt: Date
    /// Millisecond precision; the store truncates finer values.
    public var updatedAt: Date
    /// 1 on create, +1 on every update. Used for optimistic concurrency and package cache keys.
    public var version: Int
    /// Store-assigned tag of the last change, strictly increasing across all orders in commit order.
    public var changeSequence: Int64

    /// Creates a record to pass to ``OrderStore/createOrder(_:)``; `version` and `changeSequence`
    /// are assigned by the store.
    public init(
        orderTypeIdentifier: String,
        orderIdentifier: String,
        merchantID: String,
        authenticationToken: String,
        document: [UInt8],
        status: String?,
        createdAt: Date,
        updatedAt: Date,
        version: Int = 1,
        changeSequence: Int64 = 0
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.merchantID = merchantID
        self.authenticationToken = authenticationToken
        self.document = document
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.changeSequence = changeSequence
    }
}

/// One page of ``OrderStore/listOrders(merchantID:orderTypeIdentifier:status:updatedSince:after:limit:)``.
public struct OrderPage: Sendable {
    public var orders: [OrderRecord]
    /// Pass to the next call to continue; `nil` when this page is the last.
    public var nextCursor: String?

    public init(orders: [OrderRecord], nextCursor: String?) {
        self.orders = orders
        self.nextCursor = nextCursor
    }
}

/// A device registered for update pushes of one order.
public struct Registration: Sendable, Hashable {
    public var deviceLibraryIdentifier: String
    public var pushToken: String
    public var orderTypeIdentifier: String
    public var orderIdentifier: String
    /// When the current push token was registered (creation or token replacement).
    public var registeredAt: Date

    public init(
        deviceLibraryIdentifier: String,
        pushToken: String,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        registeredAt: Date
    ) {
        self.deviceLibraryIdentifier = deviceLibraryIdentifier
        self.pushToken = pushToken
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.registeredAt = registeredAt
    }
}

/// Result of ``OrderStore/register(deviceLibraryIdentifier:pushToken:orderTypeIdentifier:orderIdentifier:)``.
public enum RegistrationOutcome: Sendable, Hashable {
    /// A new registration (HTTP 201).
    case created
    /// The device was already registered (HTTP 200); its push token was replaced if it differed.
    case alreadyRegistered(pushTokenReplaced: Bool)
}

/// Orders of one device and type that changed after a tag, and the tag to use next time.
public struct ChangedOrders: Sendable, Hashable {
    public var orderIdentifiers: [String]
    /// The highest change sequence among the returned orders: the device's next `lastModified` tag.
    public var lastChange: Int64

    public init(orderIdentifiers: [String], lastChange: Int64) {
        self.orderIdentifiers = orderIdentifiers
        self.lastChange = lastChange
    }
}

/// A stored response of a merchant API request carrying an `Idempotency-Key`.
public struct IdempotencyRecord: Sendable, Hashable {
    /// Hash of the request (method, path, body) computed by the caller, to detect key reuse with another request.
    public var requestHash: String
    /// HTTP status of the stored response.
    public var status: Int
    public var body: [UInt8]
    public var createdAt: Date

    public init(requestHash: String, status: Int, body: [UInt8], createdAt: Date) {
        self.requestHash = requestHash
        self.status = status
        self.body = body
        self.createdAt = createdAt
    }
}

/// A response to store under a merchant's idempotency key, in the transaction of the write it answers.
public struct IdempotencyClaim: Sendable, Hashable {
    public var merchantID: String
    public var key: String
    public var record: IdempotencyRecord

    public init(merchantID: String, key: String, record: IdempotencyRecord) {
        self.merchantID = merchantID
        self.key = key
        self.record = record
    }
}

/// Result of ``OrderStore/createOrder(_:idempotency:)``.
public enum IdempotentCreationOutcome: Sendable, Hashable {
    /// This call stored the order, as returned, and the response under the key.
    case created(OrderRecord)
    /// Another request stored a response under this key first; it is returned unchanged and nothing was written.
    case replayed(IdempotencyRecord)
}

/// Metadata of a stored asset (an image referenced by order documents).
public struct AssetInfo: Sendable, Hashable {
    public var merchantID: String
    public var name: String
    public var contentType: String
    /// Lowercase hex SHA-256 of the bytes, computed by the caller.
    public var sha256: String
    public var size: Int
    public var updatedAt: Date

    public init(merchantID: String, name: String, contentType: String, sha256: String, size: Int, updatedAt: Date) {
        self.merchantID = merchantID
        self.name = name
        self.contentType = contentType
        self.sha256 = sha256
        self.size = size
        self.updatedAt = updatedAt
    }
}

/// A stored asset with its bytes.
public struct Asset: Sendable, Hashable {
    public var info: AssetInfo
    public var bytes: [UInt8]

    public init(info: AssetInfo, bytes: [UInt8]) {
        self.info = info
        self.bytes = bytes
    }
}
