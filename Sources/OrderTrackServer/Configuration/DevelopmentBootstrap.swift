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
}

/// First start: a demo merchant with an API key and a development signing identity, so everything works at once.
enum DevelopmentBootstrap {
    static let orderTypeIdentifier = "order.dev.ordertrack.demo"
    static let credentialsFileName = "dev-credentials.json"

    /// Creates the demo merchant if the database has no merchant yet; returns what it created.
    static func runIfEmpty(store: any OrderStore, configuration: ServerConfiguration, logger: Logger) async throws -> DevelopmentCredentials? {
        guard try await store.merchants().isEmpty else { return nil }
        let identityDirectory = configuration.dataDirectory.appendingPathComponent("identities/\(orderTypeIdentifier)", isDirectory: true)
        try FileManager.default.createDirectory(at: identityDirectory, withIntermediateDirectories: true)
        _ = try DevelopmentIdentity.create(orderTypeIdentifier: orderTypeIdentifier, in: identityDirectory)

        let administration = Administration(store: store)
        let (merchant, apiKey) = try await administration.createMerchant(name: "Demo Merchant")
        try await administration.setOrderType(
            merchantID: merchant.id, orderTypeIdentifier: orderTypeIdentifier, identity: .directory(path: identityDirectory.path))

        let credentials = DevelopmentCredentials(
            merchantID: merchant.id, apiKey: apiKey, orderTypeIdentifier: orderTypeIdentifier, identityDirectory: identityDirectory.path,
            rootCertificate: identityDirectory.appendingPathComponent("root-ca.pem").path, webServiceURL: configuration.webServiceURL)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let file = configuration.dataDirectory.appendingPathComponent(credentialsFileName)
        try encoder.encode(credentials).write(to: file, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        logger.notice("created demo merchant and development signing identity (not trusted by Wallet)", metadata: ["credentials": .string(file.path)])
        return credentials
    }

    /// A ready-to-paste command that creates an order with the demo key.
    static func exampleCommand(_ credentials: DevelopmentCredentials, publicURL: String) -> String {
        """
        curl -sS -u \(credentials.apiKey): \(publicURL)/api/v1/orders \\
          -H 'Content-Type: application/json' \\
          -d '{"merchant": {"displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com"}, "orderManagementURL": "https://shop.example.com/orders/1", "orderNumber": "1001", "payment": {"total": {"amount": "42.00", "currency": "USD"}, "status": "paid"}, "lineItems": [{"title": "Coffee beans", "quantity": 2, "price": {"amount": "21.00", "currency": "USD"}}], "fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"}]}'
        """
    }
}
