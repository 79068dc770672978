import Foundation
import Logging
import OrderModel
import OrderPersistence
import OrderSigning

/// What a first start on an empty data directory creates, as written to `dev-credentials.json`.
public struct DevelopmentCredentials: Sendable, Codable {
    public var merchantID: String
    public var apiKey: String
    public var orderTypeIdentifier: String
    public var identityDirectory: String
    public var rootCertificate: String
    public var webServiceURL: String
    /// The demo merchant's order-lookup key; `nil` in files written before order lookup existed.
    public var lookup: DevelopmentLookupCredentials?
}

/// The demo lookup key, as Apple's App Store Server Library takes it: the `.p8`, its key id, issuer id and bundle id;
/// plus the root certificate for `SignedDataVerifier` and an app Apple id (any number: the verifier requires one for
/// `Environment.PRODUCTION`, and order lookups never compare it).
public struct DevelopmentLookupCredentials: Sendable, Codable {
    public var keyId: String
    public var issuerId: String
    public var bundleId: String
    public var appAppleId: Int
    /// Path of the private key, `AuthKey_<keyId>.p8`, mode 0600.
    public var privateKey: String
    /// Path of the deployment's lookup root certificate, PEM.
    public var rootCertificate: String
}

/// First start in development mode: a demo merchant with an API key and a development signing identity, so everything
/// works at once. The key goes to `dev-credentials.json` (0600), never to the log.
enum DevelopmentBootstrap {
    static let orderTypeIdentifier = "order.dev.ordertrack.demo"
    static let credentialsFileName = "dev-credentials.json"
    static let lookupBundleID = "dev.ordertrack.demo"
    static let lookupAppAppleID = 1_234_567_890

    /// Whether the data directory already holds the demo's identity (left by an earlier database, deleted since),
    /// valid now and for 30 more days: it is reused, so devices that trust its root keep trusting the demo's orders.
    static func reusableIdentity(in directory: URL, now: Date) -> Bool {
        guard let identity = try? SigningIdentity(directory: directory) else { return false }
        return identity.orderTypeIdentifier == orderTypeIdentifier && identity.certificate.notValidBefore <= now
            && identity.notValidAfter > now.addingTimeInterval(30 * 86_400)
    }

    /// Creates the demo merchant if the database has no merchant yet; returns what it created.
    static func runIfEmpty(
        store: any MerchantStore & APIKeyStore & OrderTypeStore & LookupStore, configuration: ServerConfiguration, logger: Logger, clock: ServerClock
    ) async throws -> DevelopmentCredentials? {
        guard try await store.merchants().isEmpty else { return nil }
        let identityDirectory = configuration.dataDirectory.appendingPathComponent("identities/\(orderTypeIdentifier)", isDirectory: true)
        if !reusableIdentity(in: identityDirectory, now: clock.date) {
            // The demo's own directory: what is left there (expired, unreadable) is of no use to anyone.
            try? FileManager.default.removeItem(at: identityDirectory)
            _ = try DevelopmentIdentity.create(orderTypeIdentifier: orderTypeIdentifier, in: identityDirectory, now: clock.date)
        }

        let administration = Administration(store: store, trust: .development, now: { clock.date })
        let (merchant, apiKey) = try await administration.createMerchant(name: "Demo Shop")
        try await administration.setOrderType(
            merchantID: merchant.id, orderTypeIdentifier: orderTypeIdentifier, identity: .directory(path: identityDirectory.path))

        let lookup = try await createLookupKey(store: store, merchantID: merchant.id, configuration: configuration, clock: clock)
        let credentials = DevelopmentCredentials(
            merchantID: merchant.id, apiKey: apiKey, orderTypeIdentifier: orderTypeIdentifier, identityDirectory: identityDirectory.path,
            rootCertificate: identityDirectory.appendingPathComponent("root-ca.pem").path, webServiceURL: configuration.webServiceURL,
            lookup: lookup)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let file = configuration.dataDirectory.appendingPathComponent(credentialsFileName)
        // Created with its final mode (never readable by others, not even between a write and a chmod); a file left
        // by an earlier demo merchant (a database reset under the same data directory) is replaced.
        unlink(file.path)
        try SecureFile.create(String(decoding: try encoder.encode(credentials), as: UTF8.self), to: file, mode: 0o600)
        logger.notice("created demo merchant and development signing identity (not trusted by Wallet)", metadata: ["credentials": .string(file.path)])
        return credentials
    }

    /// Warns when development mode serves several merchants (audit L21): it is meant for one developer's server, and a
    /// shared one keeps what merchants configured with development certificates before the second one came.
    static func warnIfShared(store: any MerchantStore, logger: Logger) async throws {
        let merchants = try await store.merchants().count
        guard merchants > 1 else { return }
        logger.warning(
            "development mode serves \(merchants) merchants: they can no longer configure development certificates (only ordertrack order-type can), but order types configured with one earlier keep it; run a server several merchants share with --no-dev and a master key"
        )
    }

    /// The deployment's lookup signing chain and a lookup key for the demo merchant, written to `lookup/` in the data
    /// directory: `AuthKey_<keyId>.p8` (0600) and `root.pem`.
    static func createLookupKey(store: any LookupStore, merchantID: String, configuration: ServerConfiguration, clock: ServerClock) async throws
        -> DevelopmentLookupCredentials
    {
        let chain = try await LookupChainProvider.ensure(store: store, now: clock.date)
        let created = try await LookupKeyService(store: store, now: { clock.date }).create(merchantID: merchantID, bundleID: lookupBundleID)
        let directory = configuration.dataDirectory.appendingPathComponent("lookup", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let privateKey = directory.appendingPathComponent("AuthKey_\(created.record.keyID).p8")
        let root = directory.appendingPathComponent("root.pem")
        try SecureFile.create(created.privateKeyPEM, to: privateKey, mode: 0o600)
        try SecureFile.create(try chain.pem.rootCertificate, to: root, mode: 0o644)
        return DevelopmentLookupCredentials(
            keyId: created.record.keyID, issuerId: created.record.issuerID, bundleId: created.record.bundleID, appAppleId: lookupAppAppleID,
            privateKey: privateKey.path, rootCertificate: root.path)
    }

    /// A ready-to-paste command that creates an order with the demo key.
    static func exampleCommand(_ credentials: DevelopmentCredentials, publicURL: String) -> String {
        """
        curl -sS -u \(credentials.apiKey): \(publicURL)/api/v1/orders \\
          -H 'Content-Type: application/json' \\
          -d '{"merchant": {"displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com"}, "orderManagementURL": "https://shop.example.com/orders/DEMO-1", "orderNumber": "DEMO-1", "payment": {"total": {"amount": "42.00", "currency": "USD"}, "status": "paid"}, "lineItems": [{"title": "Coffee beans", "quantity": 2, "price": {"amount": "21.00", "currency": "USD"}}], "fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"}]}'
        """
    }
}
