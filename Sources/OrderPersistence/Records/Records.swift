import Foundation
import WireFormats

/// A merchant: the tenant that owns order types, orders, API keys and assets.
public struct MerchantRecord: Sendable, Hashable, Codable {
    /// Lowercase UUID string.
    public var id: String
    /// The name shown to operators; not unique.
    public var name: String
    /// When the merchant was created.
    public var createdAt: Date

    /// Creates a record; ``MerchantStore/createMerchant(name:)`` makes the id and date of a new merchant.
    public init(id: String, name: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}

/// A merchant API key as operators see it. The secret itself is never stored, only its SHA-256.
///
/// A key made before restricted keys existed, or by `ordertrack merchant api-key` without `--scope`, has every scope
/// (`scopes == nil`); a restricted key lists its scopes and may be limited to some order types and expire.
public struct APIKeyInfo: Sendable, Hashable {
    /// The key's public id (`key_…`), what listings, revocation and the audit trail name.
    public var id: String
    /// The merchant the key authenticates.
    public var merchantID: String
    /// A name for people (`carrier`, `secret key`).
    public var name: String
    /// The first characters of the secret, so an operator can tell keys apart.
    public var prefix: String
    /// The scopes the key grants, sorted; `nil` for a secret key, which has every scope.
    public var scopes: [String]?
    /// The order types the key is limited to, sorted; `nil` for every order type of the merchant.
    public var orderTypeIdentifiers: [String]?
    /// When the key was added.
    public var createdAt: Date
    /// When the key stops working, if ever.
    public var expiresAt: Date?
    /// When the key was revoked, if it was.
    public var revokedAt: Date?
    /// When the key last authenticated a request, to the minute (uses are recorded at most once a minute).
    public var lastUsedAt: Date?

    /// Creates the metadata of a key.
    public init(
        id: String, merchantID: String, name: String, prefix: String, scopes: [String]? = nil, orderTypeIdentifiers: [String]? = nil,
        createdAt: Date, expiresAt: Date? = nil, revokedAt: Date? = nil, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.merchantID = merchantID
        self.name = name
        self.prefix = prefix
        self.scopes = scopes
        self.orderTypeIdentifiers = orderTypeIdentifiers
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
    }

    /// Whether the key works at `date`: not revoked and not expired.
    public func isUsable(at date: Date) -> Bool {
        revokedAt == nil && (expiresAt.map { date < $0 } ?? true)
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
    /// The `.p8` file's PEM text (`-----BEGIN PRIVATE KEY-----`); a secret.
    public var p8PEM: String
    /// The key's 10-character identifier from the developer account.
    public var keyID: String
    /// The team identifier the key belongs to.
    public var teamID: String

    /// Creates a token configuration from the key and its identifiers.
    public init(p8PEM: String, keyID: String, teamID: String) {
        self.p8PEM = p8PEM
        self.keyID = keyID
        self.teamID = teamID
    }
}

/// An order type (the APNs topic and `orderTypeIdentifier`) and how its packages are signed and pushed.
public struct OrderTypeRecord: Sendable, Hashable {
    /// The Order Type ID, such as `order.com.example.shop`.
    public var orderTypeIdentifier: String
    /// The merchant that owns the order type; no other merchant can use it.
    public var merchantID: String
    /// Where the Order Type ID certificate and key that sign its packages come from.
    public var identity: IdentityConfig
    /// Push with a provider token instead of the Order Type ID certificate (the default).
    public var apnsToken: APNsTokenConfig?

    /// Creates an order type record, pushing with the certificate unless `apnsToken` is given.
    public init(orderTypeIdentifier: String, merchantID: String, identity: IdentityConfig, apnsToken: APNsTokenConfig? = nil) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.merchantID = merchantID
        self.identity = identity
        self.apnsToken = apnsToken
    }
}

/// One stored order: its `order.json` bytes plus the bookkeeping the web service needs.
public struct OrderRecord: Sendable, Hashable {
    /// The order's type: its `orderTypeIdentifier` and APNs topic.
    public var orderTypeIdentifier: String
    /// The order's identifier, unique within its type.
    public var orderIdentifier: String
    /// The merchant that owns the order.
    public var merchantID: String
    /// The secret Wallet devices present as `Authorization: AppleOrder <token>` to fetch the order.
    public var authenticationToken: String
    /// The `order.json` bytes.
    public var document: [UInt8]
    /// The order status extracted from the document by the caller, for filtering lists.
    public var status: String?
    /// The order number (`orderNumber`) extracted from the document by the caller, for finding orders by it.
    public var orderNumber: String?
    /// Millisecond precision; the store truncates finer values.
    public var createdAt: Date
    /// Millisecond precision; the store truncates finer values.
    public var updatedAt: Date
    /// 1 on create, +1 on every update. Used for optimistic concurrency and package cache keys.
    public var version: Int
    /// Store-assigned tag of the last change, strictly increasing across all orders in commit order.
    public var changeSequence: Int64

    /// Creates a record to pass to ``OrderRecordStore/createOrder(_:)``; `version` and `changeSequence`
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
        changeSequence: Int64 = 0,
        orderNumber: String? = nil
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
        self.orderNumber = orderNumber
    }
}

/// One page of ``OrderRecordStore/listOrders(merchantID:orderTypeIdentifier:orderNumber:status:updatedSince:after:limit:)``.
public struct OrderPage: Sendable {
    /// The page's orders, in creation order.
    public var orders: [OrderRecord]
    /// Pass to the next call to continue; `nil` when this page is the last.
    public var nextCursor: String?

    /// Creates a page.
    public init(orders: [OrderRecord], nextCursor: String?) {
        self.orders = orders
        self.nextCursor = nextCursor
    }
}

/// A device registered for update pushes of one order.
public struct Registration: Sendable, Hashable {
    /// The device's identifier, as Wallet sends it in the registration path.
    public var deviceLibraryIdentifier: String
    /// The device's APNs token, hex.
    public var pushToken: String
    /// The registered order's type.
    public var orderTypeIdentifier: String
    /// The registered order's identifier.
    public var orderIdentifier: String
    /// When the current push token was registered (creation or token replacement).
    public var registeredAt: Date

    /// Creates a registration, for ``SQLOrderStore/insertRegistrations(_:)``.
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

/// Result of ``RegistrationStore/register(deviceLibraryIdentifier:pushToken:orderTypeIdentifier:orderIdentifier:)``.
public enum RegistrationOutcome: Sendable, Hashable {
    /// A new registration (HTTP 201).
    case created
    /// The device was already registered (HTTP 200); its push token was replaced if it differed.
    case alreadyRegistered(pushTokenReplaced: Bool)
    /// The order already has `maximum` devices registered; nothing was stored (HTTP 429).
    case limitReached(maximum: Int)
}

/// Orders of one device and type that changed after a tag, and the tag to use next time.
public struct ChangedOrders: Sendable, Hashable {
    /// The changed orders, in the order of their changes.
    public var orderIdentifiers: [String]
    /// The highest change sequence among the returned orders: the device's next `lastModified` tag.
    public var lastChange: Int64

    /// Creates a result.
    public init(orderIdentifiers: [String], lastChange: Int64) {
        self.orderIdentifiers = orderIdentifiers
        self.lastChange = lastChange
    }
}

extension ChangedOrders {
    /// The orders of `registered` changed after `tag` (all of them without one), in the order of their changes; `nil`
    /// when none did. `registered` is in the order of the changes, as the store reads it.
    public init?(_ registered: [RegisteredOrder], changedAfter tag: Int64?) {
        let changed = tag.map { tag in registered.filter { $0.changeSequence > tag } } ?? registered
        guard let last = changed.last else { return nil }
        self.init(orderIdentifiers: changed.map(\.orderIdentifier), lastChange: last.changeSequence)
    }
}

/// An order a device is registered for, with the change sequence of its last change.
public struct RegisteredOrder: Sendable, Hashable {
    /// The order's identifier (within the order type asked for).
    public var orderIdentifier: String
    /// The order's last change: the `lastModified` tag after which it no longer counts as changed.
    public var changeSequence: Int64

    /// Creates a registered order.
    public init(orderIdentifier: String, changeSequence: Int64) {
        self.orderIdentifier = orderIdentifier
        self.changeSequence = changeSequence
    }
}

/// A stored response of a merchant API request carrying an `Idempotency-Key`.
public struct IdempotencyRecord: Sendable, Hashable {
    /// Hash of the request (method, path, body) computed by the caller, to detect key reuse with another request.
    public var requestHash: String
    /// HTTP status of the stored response.
    public var status: Int
    /// The stored response body, replayed byte for byte.
    public var body: [UInt8]
    /// When the response was stored; ``RetentionStore/deleteIdempotentResponses(createdBefore:)`` goes by it.
    public var createdAt: Date

    /// Creates a record of a response.
    public init(requestHash: String, status: Int, body: [UInt8], createdAt: Date) {
        self.requestHash = requestHash
        self.status = status
        self.body = body
        self.createdAt = createdAt
    }
}

/// A response to store under a merchant's idempotency key, in the transaction of the write it answers.
public struct IdempotencyClaim: Sendable, Hashable {
    /// The merchant whose key it is: keys are scoped per merchant.
    public var merchantID: String
    /// The `Idempotency-Key` header's value.
    public var key: String
    /// The response to store under the key.
    public var record: IdempotencyRecord

    /// Creates a claim of `key` for `record`.
    public init(merchantID: String, key: String, record: IdempotencyRecord) {
        self.merchantID = merchantID
        self.key = key
        self.record = record
    }
}

/// Result of ``OrderRecordStore/createOrder(_:idempotency:)``.
public enum IdempotentCreationOutcome: Sendable, Hashable {
    /// This call stored the order, as returned, and the response under the key.
    case created(OrderRecord)
    /// Another request stored a response under this key first; it is returned unchanged and nothing was written.
    case replayed(IdempotencyRecord)
}

/// Metadata of a stored asset (an image referenced by order documents).
public struct AssetInfo: Sendable, Hashable {
    /// The merchant that owns the asset.
    public var merchantID: String
    /// The asset's path in the package, such as `logo.png` or `fr.lproj/order.strings`; unique per merchant.
    public var name: String
    /// The media type it is served with.
    public var contentType: String
    /// Lowercase hex SHA-256 of the bytes, computed by the caller.
    public var sha256: String
    /// The size in bytes.
    public var size: Int
    /// When the asset was last stored.
    public var updatedAt: Date

    /// Creates asset metadata.
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
    /// The asset's metadata.
    public var info: AssetInfo
    /// The asset's content.
    public var bytes: [UInt8]

    /// Creates an asset from its metadata and content.
    public init(info: AssetInfo, bytes: [UInt8]) {
        self.info = info
        self.bytes = bytes
    }
}

extension APIKeyInfo {
    /// A new key id: `key_` and 24 random hex digits. Ids are not secrets; they only have to be unique.
    public static func newID() -> String { randomIdentifier(prefix: "key_") }
}

/// `prefix` and 24 hex digits from the system's CSPRNG: an id that is unique without a coordinator.
func randomIdentifier(prefix: String) -> String {
    var generator = SystemRandomNumberGenerator()
    // Two draws rather than a String(format:) per byte: every event row gets an id, on SQLite on its writer.
    let high = generator.next() as UInt64
    let low = generator.next() as UInt32
    return prefix
        + Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: high >> ($0 * 8)) } + (0..<4).map { UInt8(truncatingIfNeeded: low >> ($0 * 8)) })
}
