import Foundation
import OrderModel
import OrderPersistence
import OrderSigning

/// Configuring a merchant's order types from uploaded credentials, for the merchant API and the dashboard alike:
/// reads the upload's fields, lets ``Administration/setOrderType(merchantID:orderTypeIdentifier:identity:apnsToken:)``
/// check and store them, then hands the parsed identity to package building and drops the type's APNs connections.
package struct OrderTypeService: Sendable {
    /// The largest PKCS#12 file accepted: a certificate chain and one key take a few kilobytes.
    static let maximumPKCS12Size = 64 * 1024
    /// The largest `.p8` key accepted: a P-256 key in PEM is about 250 bytes.
    static let maximumP8Size = 4 * 1024

    let administration: Administration
    let packages: PackageService
    /// Forgets the APNs connections of an order type whose credentials changed.
    let credentialChanged: @Sendable (String) async -> Void

    /// The signing identity an upload carries: `{"pkcs12": "<base64>", "password": "…", "wwdrPEM": "…"}`.
    package static func identity(from body: JSONValue) throws -> IdentityConfig {
        guard let encoded = body["pkcs12"]?.stringValue, let pkcs12 = Data(base64Encoded: encoded), !pkcs12.isEmpty else {
            throw OrderTrackError(
                .pkcs12Missing, "the body needs pkcs12: the Order Type ID certificate and key as a base64 PKCS#12 (.p12) file", field: "pkcs12")
        }
        guard pkcs12.count <= maximumPKCS12Size else {
            throw OrderTrackError(
                .pkcs12TooLarge, "the PKCS#12 file has \(pkcs12.count) bytes; an identity takes a few kilobytes (at most \(maximumPKCS12Size))",
                field: "pkcs12")
        }
        return .pkcs12(bytes: Array(pkcs12), password: body["password"]?.stringValue ?? "", wwdrPEM: body["wwdrPEM"]?.stringValue)
    }

    /// The APNs token key an upload carries: `{"p8": "<PEM text>", "keyID": "…", "teamID": "…"}`.
    package static func apnsKey(from body: JSONValue) throws -> APNsTokenConfig {
        guard let p8 = body["p8"]?.stringValue, !p8.isEmpty else {
            throw OrderTrackError(.p8Missing, "the body needs p8: the text of the APNs key's .p8 file", field: "p8")
        }
        guard p8.utf8.count <= maximumP8Size else {
            throw OrderTrackError(.p8TooLarge, "a .p8 key file has a few hundred bytes, not \(p8.utf8.count)", field: "p8")
        }
        return APNsTokenConfig(p8PEM: p8, keyID: body["keyID"]?.stringValue ?? "", teamID: body["teamID"]?.stringValue ?? "")
    }

    /// Configures (or creates) an order type with exactly this identity and APNs key (`nil` pushes with the
    /// certificate), as `PUT /api/v1/order-types/{orderTypeIdentifier}` does.
    @discardableResult
    func configure(merchant: MerchantRecord, orderTypeIdentifier: String, identity: IdentityConfig, apnsToken: APNsTokenConfig?) async throws
        -> SigningIdentity
    {
        let parsed = try await administration.setOrderType(
            merchantID: merchant.id, orderTypeIdentifier: orderTypeIdentifier, identity: identity, apnsToken: apnsToken)
        // Parsed once: packages and pushes use this identity rather than parsing the PKCS#12 again.
        packages.invalidateIdentity(orderTypeIdentifier, replacement: (identity, parsed))
        await credentialChanged(orderTypeIdentifier)
        return parsed
    }

    /// Replaces an order type's signing identity (or adds the order type), keeping the APNs key it pushes with.
    package func replaceIdentity(merchant: MerchantRecord, orderTypeIdentifier: String, identity: IdentityConfig) async throws {
        let existing = try await owned(merchant: merchant, orderTypeIdentifier: orderTypeIdentifier)
        try await configure(merchant: merchant, orderTypeIdentifier: orderTypeIdentifier, identity: identity, apnsToken: existing?.apnsToken)
    }

    /// Makes an existing order type push with an APNs token key, keeping its signing identity.
    package func setAPNsKey(merchant: MerchantRecord, orderTypeIdentifier: String, key: APNsTokenConfig) async throws {
        guard let existing = try await owned(merchant: merchant, orderTypeIdentifier: orderTypeIdentifier) else {
            throw OrderTrackError(.notFound, "no order type \(orderTypeIdentifier): add it with its certificate first")
        }
        try await configure(merchant: merchant, orderTypeIdentifier: orderTypeIdentifier, identity: existing.identity, apnsToken: key)
    }

    /// The merchant's order type with this identifier, `nil` when it has none (another merchant's is refused later).
    private func owned(merchant: MerchantRecord, orderTypeIdentifier: String) async throws -> OrderTypeRecord? {
        try await administration.orderTypes(merchantID: merchant.id).first { $0.orderTypeIdentifier == orderTypeIdentifier }
    }
}
