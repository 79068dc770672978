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
    public let store: any OrderStore
    /// Which certificates prove ownership of an order type: Apple's, or in development mode also development ones.
    public let trust: OrderTypeTrust
    /// Parses the signing identity of an order type; the server does it on its CPU pool.
    private let parseIdentity: @Sendable (IdentityConfig) async throws -> SigningIdentity

    /// Administration of `store`; order types need certificates `trust` accepts (Apple's unless development mode).
    public init(store: any OrderStore, trust: OrderTypeTrust = .apple) {
        self.init(store: store, trust: trust, parseIdentity: { try CredentialProvider.load($0) })
    }

    init(store: any OrderStore, trust: OrderTypeTrust, parseIdentity: @escaping @Sendable (IdentityConfig) async throws -> SigningIdentity) {
        self.store = store
        self.trust = trust
        self.parseIdentity = parseIdentity
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

    /// The merchant a secret API key belongs to, if any. Looked up by the key's SHA-256: the stored hash reveals
    /// nothing, and equality on it leaks nothing about the key.
    public func merchant(forAPIKey key: String) async throws -> MerchantRecord? {
        try await store.merchant(forAPIKeyHash: Secrets.sha256Hex(Array(key.utf8)))
    }

    /// A merchant's order types.
    public func orderTypes(merchantID: String) async throws -> [OrderTypeRecord] {
        try await store.orderTypes(merchantID: merchantID)
    }

    /// A new secret API key for a merchant (keys from a CSPRNG; only the SHA-256 is stored).
    public func createAPIKey(merchantID: String) async throws -> String {
        let apiKey = Secrets.apiKey()
        do {
            try await store.addAPIKey(merchantID: merchantID, keyHash: Secrets.sha256Hex(Array(apiKey.utf8)), prefix: String(apiKey.prefix(10)))
        } catch OrderStoreError.merchantNotFound {
            throw OrderTrackError(.notFound, "no merchant with id \(merchantID)")
        }
        return apiKey
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
        if let refusal = await trust.refusal(of: identity, for: orderTypeIdentifier, now: Date()) {
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

    /// Sets the merchant's order defaults: what fills the fields the payment providers' simplified order form lacks.
    /// Each is checked as Wallet would check it in an order, so a default can never make an order invalid.
    public func setOrderDefaults(merchantID: String, _ defaults: ProviderVocabulary.Defaults) async throws {
        if let url = defaults.orderManagementURL, TextFormat.scheme(of: url) != "https" || !TextFormat.isAbsoluteURI(url) {
            throw OrderTrackError(
                .invalidOrderDefaults, "orderManagementURL must be an absolute https URL, not \"\(url)\"", field: "orderManagementURL")
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
                    merchantID: merchantID, orderManagementURL: defaults.orderManagementURL, fulfillmentType: defaults.fulfillmentType,
                    paymentStatus: defaults.paymentStatus, updatedAt: Date()))
        } catch OrderStoreError.merchantNotFound {
            throw OrderTrackError(.notFound, "no merchant with id \(merchantID)")
        }
    }

    /// The merchant's order defaults; none set is all `nil`.
    public func orderDefaults(merchantID: String) async throws -> ProviderVocabulary.Defaults {
        guard let record = try await store.orderDefaults(merchantID: merchantID) else { return ProviderVocabulary.Defaults() }
        return ProviderVocabulary.Defaults(
            orderManagementURL: record.orderManagementURL, fulfillmentType: record.fulfillmentType, paymentStatus: record.paymentStatus)
    }

    static let fulfillmentTypes = ["shipping", "pickup"]
}
