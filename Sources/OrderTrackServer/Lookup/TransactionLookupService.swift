import BoundedCache
import Crypto
import Foundation
import Logging
import OrderLookupSigning
import OrderModel
import OrderPersistence
import Synchronization

/// "Look Up Order ID": authenticates an App Store Server API token, applies the key's rate limit, finds the order among
/// the key's merchant's orders and answers its signed transactions, cached per order version and bundle id so repeated
/// lookups do not sign again.
final class TransactionLookupService: Sendable {
    private struct CacheKey: Hashable, Sendable {
        var orderTypeIdentifier: String
        var orderIdentifier: String
        var version: Int
        var bundleID: String
    }

    private let store: any LookupStore
    private let chains: LookupChainProvider
    private let limiter: LookupRateLimiter
    private let configuration: LookupConfiguration
    private let cache: Mutex<LRUCache<CacheKey, [String]>>
    /// Serialized answers, by the versions of the orders they show and the bundle id; as many bytes as ``cache``.
    private let answers: Mutex<LRUCache<[CacheKey], [UInt8]>>
    /// Tokens that verified, by the SHA-256 of the token, until they expire: a support tool sends one token for many
    /// lookups, and its ES256 verification (with the key's PEM parsed) was most of a lookup's cost.
    private let verifiedTokens: Mutex<LRUCache<SHA256Digest, VerifiedToken>>
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(store: any LookupStore, configuration: LookupConfiguration, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.chains = LookupChainProvider(store: store, now: now)
        self.limiter = LookupRateLimiter(limit: configuration.rateLimit, window: configuration.rateLimitWindow)
        self.configuration = configuration
        self.cache = Mutex(LRUCache(capacity: configuration.cacheBytes))
        self.answers = Mutex(LRUCache(capacity: configuration.cacheBytes))
        self.verifiedTokens = Mutex(LRUCache(capacity: max(1, configuration.verifiedTokenCapacity)))
        self.now = now
        self.logger = logger
    }

    private struct VerifiedToken: Sendable {
        var keyID: String
        var expiresAt: Date
    }

    /// The key a bearer token authenticates, checked as Apple documents (see ``LookupAPIToken``).
    ///
    /// A token that verified is not verified again until it expires; its key is read on every lookup all the same, so a
    /// revocation holds at once, on every instance.
    ///
    /// - Throws: ``AppStoreAPIError/unauthorized`` for any problem with the token, the key unknown or revoked.
    func authenticate(bearer token: String) async throws -> LookupKeyRecord {
        let digest = SHA256.hash(data: Array(token.utf8))
        let now = now()
        do {
            if let verified = verifiedTokens.withLock({ $0.value(forKey: digest) }), verified.expiresAt > now {
                return try await activeKey(id: verified.keyID)
            }
            let key = try await activeKey(id: try LookupAPIToken.keyId(of: token))
            let claims = try await LookupAPIToken.verify(
                token, key: LookupAPIToken.Key(publicKeyPEM: key.publicKeyPEM, issuerId: key.issuerID, bundleId: key.bundleID), now: now)
            verifiedTokens.withLock {
                _ = $0.setValue(VerifiedToken(keyID: key.keyID, expiresAt: claims.exp.value), forKey: digest, cost: 1)
            }
            return key
        } catch let error as LookupTokenError {
            logger.debug("order lookup token refused", metadata: ["reason": .string("\(error)")])
            throw AppStoreAPIError.unauthorized
        }
    }

    private func activeKey(id keyID: String) async throws -> LookupKeyRecord {
        guard let key = try await store.lookupKey(id: keyID), key.revokedAt == nil else { throw LookupTokenError.unknownKey }
        return key
    }

    /// Counts a lookup by `key`.
    ///
    /// - Throws: ``AppStoreAPIError/rateLimitExceeded(retryAfter:)`` past the configured limit.
    func admit(_ key: LookupKeyRecord) throws {
        if let retryAfter = limiter.admit(keyID: key.keyID, now: now()) { throw AppStoreAPIError.rateLimitExceeded(retryAfter: retryAfter) }
    }

    /// Most orders one lookup answers for: several legacy orders, or orders of several order types, may share a number.
    static let maximumOrdersPerLookup = 20

    /// Apple's answer to a lookup of `orderID` (order number, else order identifier) among `key`'s merchant's orders:
    /// `{"signedTransactions": […], "status": 0}` with the signed transactions of every order it names, oldest order
    /// first, or `{"status": 1}` when the merchant has no such order, or none has line items (Apple's valid answer has
    /// at least one).
    ///
    /// The serialized answer is kept for the orders' versions and the key's bundle id as the transactions are: a support
    /// tool's repeated lookup copies it rather than encode some kilobytes of transactions again.
    func answer(orderID: String, key: LookupKeyRecord) async throws -> [UInt8] {
        let records = try await store.orders(merchantID: key.merchantID, orderNumberOrIdentifier: orderID, limit: Self.maximumOrdersPerLookup)
        let answerKey = records.map {
            CacheKey(orderTypeIdentifier: $0.orderTypeIdentifier, orderIdentifier: $0.orderIdentifier, version: $0.version, bundleID: key.bundleID)
        }
        if let cached = answers.withLock({ $0.value(forKey: answerKey) }) { return cached }
        var transactions: [String] = []
        for record in records {
            transactions += try await signedTransactions(of: record, key: key) ?? []
        }
        let answer: JSONValue =
            transactions.isEmpty
            ? ["status": .integer(1)] : ["status": .integer(0), "signedTransactions": .array(transactions.map(JSONValue.string))]
        let bytes = answer.serialized()
        answers.withLock { _ = $0.setValue(bytes, forKey: answerKey, cost: bytes.count + 64) }
        return bytes
    }

    private func signedTransactions(of record: OrderRecord, key: LookupKeyRecord) async throws -> [String]? {
        let cacheKey = CacheKey(
            orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier, version: record.version, bundleID: key.bundleID)
        if let cached = cache.withLock({ $0.value(forKey: cacheKey) }) { return cached }
        let order = try OrderCoding.decoder.decode(Order.self, from: Data(record.document))
        let payloads = OrderTransactions.payloads(
            for: order, context: OrderTransactions.Context(bundleId: key.bundleID, storefront: configuration.storefront, signedAt: now()))
        guard !payloads.isEmpty else { return nil }
        let signed = try await chains.current().signer.sign(payloads)
        cache.withLock { _ = $0.setValue(signed, forKey: cacheKey, cost: signed.reduce(64) { $0 + $1.utf8.count }) }
        return signed
    }

    /// The deployment's root certificate, PEM, for merchants to give their verifier.
    func rootCertificatePEM() async throws -> String {
        try await chains.current().chain.pem.rootCertificate
    }
}
