import Crypto
import Foundation
import OrderModel
import OrderPersistence
import OrderSigning

/// Tenant management shared by the first-start bootstrap, the merchant API and the `ordertrack merchant` and
/// `ordertrack order-type` commands: merchants, API keys and order types with their signing identities. Refusals are
/// ``OrderTrackError``s: ``OrderTrackError/Code/invalidMerchantName``, ``OrderTrackError/Code/notFound`` (no such
/// merchant) and ``OrderTrackError/Code/orderTypeRejected``.
public struct Administration: Sendable {
    public let store: any MerchantStore & APIKeyStore & OrderTypeStore
    /// Which certificates prove ownership of an order type: Apple's, or in development mode also development ones.
    public let trust: OrderTypeTrust
    /// Parses the signing identity of an order type; the server does it on its CPU pool.
    private let parseIdentity: @Sendable (IdentityConfig) async throws -> SigningIdentity
    /// The date keys are created, revoked and checked at, certificates judged and defaults stamped with.
    private let now: @Sendable () -> Date

    /// Administration of `store`; order types need certificates `trust` accepts (Apple's unless development mode).
    /// `now` is the wall clock unless the server passes its own.
    public init(
        store: any MerchantStore & APIKeyStore & OrderTypeStore, trust: OrderTypeTrust = .apple, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(store: store, trust: trust, parseIdentity: { try CredentialProvider.load($0) }, now: now)
    }

    init(
        store: any MerchantStore & APIKeyStore & OrderTypeStore, trust: OrderTypeTrust,
        parseIdentity: @escaping @Sendable (IdentityConfig) async throws -> SigningIdentity,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.trust = trust
        self.parseIdentity = parseIdentity
        self.now = now
    }

    /// Creates a merchant and its first API key; the key is returned once and stored only as a hash.
    public func createMerchant(name: String) async throws -> (merchant: MerchantRecord, apiKey: String) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200 else {
            throw OrderTrackError(.invalidMerchantName, "a merchant name must have 1–200 characters")
        }
        let merchant = try await store.createMerchant(name: trimmed)
        return (merchant, try await createAPIKey(merchantID: merchant.id))
    }

    /// The merchant whose unrestricted, live API key this is, if any (what a dashboard sign-in accepts). Looked up by
    /// the key's SHA-256: the stored hash reveals nothing, and equality on it leaks nothing about the key.
    public func merchant(forAPIKey key: String) async throws -> MerchantRecord? {
        try await store.merchant(forAPIKeyHash: Secrets.sha256Hex(Array(key.utf8)))
    }

    /// The stored key with this secret and its merchant, revoked or expired or not (the caller judges).
    public func apiKey(secret: String) async throws -> (key: APIKeyInfo, merchant: MerchantRecord)? {
        try await store.apiKey(forHash: Secrets.sha256Hex(Array(secret.utf8)))
    }

    /// The key whose earlier secret this was, and when a rotation replaced it.
    public func rotatedAPIKey(secret: String) async throws -> (keyID: String, rotatedAt: Date)? {
        try await store.retiredAPIKey(forHash: Secrets.sha256Hex(Array(secret.utf8))).map { ($0.keyID, $0.retiredAt) }
    }

    /// The merchant's default order type (a created order without `orderTypeIdentifier` gets it).
    public func defaultOrderType(merchantID: String) async throws -> String? {
        try await store.defaultOrderType(merchantID: merchantID)
    }

    /// Makes one of the merchant's order types its default.
    public func setDefaultOrderType(merchantID: String, orderTypeIdentifier: String) async throws {
        do {
            try await store.setDefaultOrderType(merchantID: merchantID, orderTypeIdentifier: orderTypeIdentifier)
        } catch OrderStoreError.orderTypeNotFound {
            throw OrderTrackError(.notFound, "this merchant has no order type \(orderTypeIdentifier); configure it first")
        }
    }

    /// A merchant's order types.
    public func orderTypes(merchantID: String) async throws -> [OrderTypeRecord] {
        try await store.orderTypes(merchantID: merchantID)
    }

    /// A new secret API key for a merchant (keys from a CSPRNG; only the SHA-256 is stored).
    public func createAPIKey(merchantID: String) async throws -> String {
        try await createAPIKey(merchantID: merchantID, name: "secret key", scopes: nil, orderTypeIdentifiers: nil, expiresAt: nil).secret
    }

    /// A new API key for a merchant, returned once with its metadata; only its SHA-256 is stored. Without `scopes` it is
    /// a secret key (`sk_…`, every scope); with them a restricted key (`rk_…`) holding exactly those scopes (names
    /// as in docs/api.md; `apple-pay:*` stands for both Apple Pay scopes), optionally limited to some of the merchant's
    /// order types and expiring at `expiresAt`. Refusals are ``OrderTrackError/Code/invalidAPIKey`` naming the field.
    public func createAPIKey(
        merchantID: String, name: String, scopes: [String]?, orderTypeIdentifiers: [String]?, expiresAt: Date?
    ) async throws -> (key: APIKeyInfo, secret: String) {
        let now = self.now()
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(trimmed.count), !trimmed.contains(where: \.isNewline) else {
            throw OrderTrackError(.invalidAPIKey, "name must have 1–100 characters on one line", field: "name")
        }
        let granted = try scopes.map(Self.scopes)
        if let orderTypeIdentifiers {
            guard !orderTypeIdentifiers.isEmpty else {
                throw OrderTrackError(
                    .invalidAPIKey, "orderTypeIdentifiers must name at least one order type; leave it out for all of them",
                    field: "orderTypeIdentifiers")
            }
            let owned = Set(try await store.orderTypes(merchantID: merchantID).map(\.orderTypeIdentifier))
            if let foreign = orderTypeIdentifiers.first(where: { !owned.contains($0) }) {
                throw OrderTrackError(.invalidAPIKey, "\(foreign) is not one of the merchant's order types", field: "orderTypeIdentifiers")
            }
        }
        if let expiresAt, expiresAt <= now {
            throw OrderTrackError(
                .invalidAPIKey, "expiresAt must be in the future, not \(DateTimeFormat.formatRFC3339(expiresAt))", field: "expiresAt")
        }
        let secret = granted == nil ? Secrets.apiKey() : Secrets.restrictedAPIKey()
        let key = APIKeyInfo(
            id: APIKeyInfo.newID(), merchantID: merchantID, name: trimmed, prefix: String(secret.prefix(10)), scopes: granted,
            orderTypeIdentifiers: orderTypeIdentifiers.map { Array(Set($0)).sorted() }, createdAt: now, expiresAt: expiresAt)
        do {
            try await store.addAPIKey(key, keyHash: Secrets.sha256Hex(Array(secret.utf8)))
        } catch OrderStoreError.merchantNotFound {
            throw OrderTrackError(.notFound, "no merchant with id \(merchantID)")
        }
        return (key, secret)
    }

    /// Revokes one of the merchant's keys: it answers 401 from then on, everywhere.
    public func revokeAPIKey(merchantID: String, id: String) async throws -> APIKeyInfo {
        let now = self.now()
        guard let key = try await store.revokeAPIKey(merchantID: merchantID, id: id, at: now) else {
            throw OrderTrackError(.notFound, "no API key \(id) of merchant \(merchantID)")
        }
        return key
    }

    /// Gives one of the merchant's live keys a new secret, returned once; the old secret stops working at once (no
    /// grace period: a rotation usually follows a leak, and a caller that wants an overlap makes a second key first).
    public func rotateAPIKey(merchantID: String, id: String) async throws -> (key: APIKeyInfo, secret: String) {
        let now = self.now()
        let existing = try await store.apiKeys(merchantID: merchantID).first { $0.id == id }
        guard let existing, existing.isUsable(at: now) else {
            throw OrderTrackError(.notFound, "no live API key \(id) of merchant \(merchantID)")
        }
        let secret = existing.scopes == nil ? Secrets.apiKey() : Secrets.restrictedAPIKey()
        guard
            let key = try await store.replaceAPIKeySecret(
                merchantID: merchantID, id: id, keyHash: Secrets.sha256Hex(Array(secret.utf8)), prefix: String(secret.prefix(10)))
        else { throw OrderTrackError(.notFound, "no live API key \(id) of merchant \(merchantID)") }
        return (key, secret)
    }

    /// The merchant's keys, revoked ones included (never a secret).
    public func apiKeys(merchantID: String) async throws -> [APIKeyInfo] {
        try await store.apiKeys(merchantID: merchantID)
    }

    /// Scope names checked and expanded, sorted; at least one, each grantable.
    static func scopes(_ names: [String]) throws -> [String] {
        guard !names.isEmpty else {
            throw OrderTrackError(.invalidAPIKey, "scopes must name at least one scope", field: "scopes")
        }
        var granted: Set<APIScope> = []
        for name in names {
            if let expanded = APIScope.shorthands[name] {
                granted.formUnion(expanded)
            } else if let scope = APIScope(rawValue: name), APIScope.grantable.contains(scope) {
                granted.insert(scope)
            } else {
                throw OrderTrackError(
                    .invalidAPIKey,
                    "\"\(name)\" is not a scope a restricted key can hold; use \((APIScope.grantable.map(\.rawValue) + APIScope.shorthands.keys).sorted().joined(separator: ", "))",
                    field: "scopes")
            }
        }
        return granted.sorted().map(\.rawValue)
    }

    /// Configures an order type for a merchant after checking the identity loads and proves ownership of the order type
    /// (``OrderTypeTrust``: names it, is within its validity, chains to Apple).
    /// With `apnsToken`, pushes use that provider token instead of the Order Type ID certificate.
    @discardableResult
    public func setOrderType(
        merchantID: String, orderTypeIdentifier: String, identity configuration: IdentityConfig, apnsToken: APNsTokenConfig? = nil
    ) async throws -> SigningIdentity {
        guard Identifiers.isValid(orderTypeIdentifier) else {
            throw OrderTrackError(.orderTypeRejected, "\"\(orderTypeIdentifier)\" is not an order type identifier (\(Identifiers.rule))")
        }
        let identity: SigningIdentity
        do {
            identity = try await parseIdentity(configuration)
        } catch {
            throw OrderTrackError(.orderTypeRejected, "the signing identity cannot be loaded: \(error)")
        }
        // One refusal for every certificate that does not prove ownership, whether or not another merchant has the
        // identifier: the answer must not tell which identifiers other tenants use.
        let refusal = try await trust.refusal(of: identity, for: orderTypeIdentifier, now: now()) {
            try await store.merchants().allSatisfy { $0.id == merchantID }
        }
        if let refusal {
            throw OrderTrackError(.orderTypeRejected, "the certificate does not prove ownership of order type \(orderTypeIdentifier): \(refusal)")
        }
        if let apnsToken {
            guard (try? P256.Signing.PrivateKey(pemRepresentation: apnsToken.p8PEM)) != nil else {
                throw OrderTrackError(.orderTypeRejected, "the APNs key is not a .p8 (P-256 private key in PEM) file")
            }
            let isIdentifier = { (text: String) in text.count == 10 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
            guard isIdentifier(apnsToken.keyID), isIdentifier(apnsToken.teamID) else {
                throw OrderTrackError(
                    .orderTypeRejected, "APNs key and team identifiers are 10 letters or digits, as the developer account shows them")
            }
        }
        do {
            try await store.upsertOrderType(
                OrderTypeRecord(
                    orderTypeIdentifier: orderTypeIdentifier, merchantID: merchantID, identity: configuration, apnsToken: apnsToken))
        } catch OrderStoreError.orderTypeOwnedByAnotherMerchant {
            // Only a holder of the identifier's Apple certificate gets here: telling it the identifier is taken leaks nothing.
            throw OrderTrackError(
                .orderTypeRejected, "order type \(orderTypeIdentifier) is configured by another merchant account; ask the operator to move it")
        } catch OrderStoreError.merchantNotFound {
            throw OrderTrackError(.orderTypeRejected, "no merchant with id \(merchantID)")
        }
        return identity
    }

    // MARK: Order defaults

    /// Sets the merchant's order defaults, merchant-wide or for one of its order types: what fills the fields the
    /// payment providers' simplified order form lacks. Each is checked as Wallet would check it in an order, so a
    /// default can never make an order invalid.
    public func setOrderDefaults(merchantID: String, orderTypeIdentifier: String? = nil, _ defaults: ProviderVocabulary.Defaults) async throws {
        if let url = defaults.orderManagementURL {
            // A template (`https://shop.example.com/orders/{orderNumber}`) is checked with its placeholders filled.
            let sample = ProviderVocabulary.urlPlaceholders.reduce(url) { $0.replacingOccurrences(of: $1, with: "1001") }
            guard TextFormat.scheme(of: sample) == "https", TextFormat.isAbsoluteURI(sample) else {
                throw OrderTrackError(
                    .invalidOrderDefaults,
                    "orderManagementURL must be an absolute https URL, optionally with {orderNumber} or {orderIdentifier}, not \"\(url)\"",
                    field: "orderManagementURL")
            }
        }
        if let type = defaults.fulfillmentType, !Self.fulfillmentTypes.contains(type) {
            throw OrderTrackError(
                .invalidOrderDefaults,
                "fulfillmentType must be \(Self.fulfillmentTypes.map { "\"\($0)\"" }.joined(separator: " or ")), not \"\(type)\"",
                field: "fulfillmentType")
        }
        if let status = defaults.paymentStatus, !OrderSchema.paymentStatuses.contains(status) {
            throw OrderTrackError(
                .invalidOrderDefaults, "paymentStatus must be one of \(OrderSchema.paymentStatuses.joined(separator: ", ")), not \"\(status)\"",
                field: "paymentStatus")
        }
        do {
            try await store.putOrderDefaults(
                MerchantOrderDefaultsRecord(
                    merchantID: merchantID, orderTypeIdentifier: orderTypeIdentifier, orderManagementURL: defaults.orderManagementURL,
                    fulfillmentType: defaults.fulfillmentType, paymentStatus: defaults.paymentStatus, updatedAt: now()))
        } catch OrderStoreError.merchantNotFound {
            throw OrderTrackError(.notFound, "no merchant with id \(merchantID)")
        } catch OrderStoreError.orderTypeNotFound {
            throw OrderTrackError(.notFound, "this merchant has no order type \(orderTypeIdentifier ?? ""); configure it first")
        }
    }

    /// The merchant-wide order defaults; none set is all `nil`.
    public func orderDefaults(merchantID: String) async throws -> ProviderVocabulary.Defaults {
        try await orderDefaults(merchantID: merchantID, orderTypeIdentifier: nil).own
    }

    /// The defaults set for one order type (or, with `nil`, merchant-wide) and those its orders get: the type's own,
    /// with the merchant's where the type sets none. One store read.
    public func orderDefaults(merchantID: String, orderTypeIdentifier: String?) async throws -> ScopedOrderDefaults {
        var merchantWide = ProviderVocabulary.Defaults()
        var own = ProviderVocabulary.Defaults()
        for record in try await store.orderDefaults(merchantID: merchantID, orderTypeIdentifier: orderTypeIdentifier) {
            let defaults = ProviderVocabulary.Defaults(
                orderManagementURL: record.orderManagementURL, fulfillmentType: record.fulfillmentType, paymentStatus: record.paymentStatus)
            if record.orderTypeIdentifier == nil { merchantWide = defaults } else { own = defaults }
        }
        return orderTypeIdentifier == nil
            ? ScopedOrderDefaults(own: merchantWide, effective: merchantWide)
            : ScopedOrderDefaults(own: own, effective: own.fallingBack(to: merchantWide))
    }

    /// Order defaults as set for a scope (merchant-wide or one order type) and as they apply to its orders.
    public struct ScopedOrderDefaults: Sendable, Hashable {
        /// What the scope itself sets.
        public var own: ProviderVocabulary.Defaults
        /// What fills its orders: for an order type, its own defaults with the merchant-wide ones where it sets none.
        public var effective: ProviderVocabulary.Defaults
    }

    static let fulfillmentTypes = ["shipping", "pickup"]
}
