import Foundation
import OrderModel
import WireFormats

/// `ApplePayPayment.token.paymentData`: the encrypted payment and the header and signature that protect it.
public struct ApplePayPaymentData: Hashable, Sendable {
    /// The token format: how the payment data is encrypted.
    public enum Version: String, Hashable, Sendable {
        /// ECDH P-256 key agreement, AES-256-GCM.
        case ecV1 = "EC_v1"
        /// RSA-OAEP-SHA256 wrapped key, AES-128-GCM.
        case rsaV1 = "RSA_v1"
    }

    /// How the symmetric key reaches the merchant.
    public enum KeyMaterial: Hashable, Sendable {
        /// EC_v1: the DER SubjectPublicKeyInfo of the device's ephemeral P-256 key.
        case ephemeralPublicKey([UInt8])
        /// RSA_v1: the AES key wrapped with the merchant's RSA key.
        case wrappedKey([UInt8])
    }

    /// `EC_v1` or `RSA_v1`.
    public var version: Version
    /// Ciphertext followed by the 16-byte GCM tag.
    public var data: [UInt8]
    /// Detached CMS SignedData (BER) over ``signedBytes``.
    public var signature: [UInt8]
    /// The ephemeral public key (EC_v1) or the wrapped key (RSA_v1).
    public var keyMaterial: KeyMaterial
    /// SHA-256 of the DER SubjectPublicKeyInfo of the payment-processing certificate the token was encrypted for.
    public var publicKeyHash: [UInt8]
    /// The transaction identifier as the token writes it (hex).
    public var transactionId: String
    /// SHA-256 of the payment request's `applicationData`, when the request had some.
    public var applicationData: [UInt8]?

    /// A token's payment data from its decoded parts.
    public init(
        version: Version, data: [UInt8], signature: [UInt8], keyMaterial: KeyMaterial, publicKeyHash: [UInt8], transactionId: String,
        applicationData: [UInt8]?
    ) {
        self.version = version
        self.data = data
        self.signature = signature
        self.keyMaterial = keyMaterial
        self.publicKeyHash = publicKeyHash
        self.transactionId = transactionId
        self.applicationData = applicationData
    }

    /// The bytes Apple signs: key material ‖ data ‖ transactionId ‖ applicationData, each decoded.
    public var signedBytes: [UInt8] {
        var bytes: [UInt8]
        switch keyMaterial {
        case .ephemeralPublicKey(let key): bytes = key
        case .wrappedKey(let key): bytes = key
        }
        bytes += data
        bytes += Hex.decode(transactionId) ?? []
        bytes += applicationData ?? []
        return bytes
    }
}

/// The payment method Apple Pay describes next to the token (no card number: a display name such as "Visa 1234").
public struct ApplePayPaymentMethod: Hashable, Sendable {
    /// What Apple Pay shows for the card, e.g. `Visa 0492`.
    public var displayName: String?
    /// The card network, e.g. `Visa`.
    public var network: String?
    /// `debit`, `credit`, `prepaid` or `store`.
    public var type: String?
}

/// A payment token: `paymentData` alone, or the whole `ApplePayPayment.token` object around it.
public struct ApplePayToken: Hashable, Sendable {
    /// Largest token JSON accepted, in bytes. Real tokens are 3–5 KB.
    public static let maximumSize = 64 * 1024

    /// The encrypted payment and what protects it.
    public var paymentData: ApplePayPaymentData
    /// The card description around the token, when the whole token object was given.
    public var paymentMethod: ApplePayPaymentMethod?
    /// The token object's `transactionIdentifier` (upper-case hex), when given.
    public var transactionIdentifier: String?

    /// Parses token JSON: either `{"paymentData": …, "paymentMethod": …, "transactionIdentifier": …}` or the
    /// `paymentData` object itself.
    public init(json bytes: some Collection<UInt8>) throws(ApplePayError) {
        guard bytes.count <= Self.maximumSize else {
            throw ApplePayError(.malformedToken, "the token is \(bytes.count) bytes; at most \(Self.maximumSize) are accepted")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw ApplePayError(.malformedToken, "the token is not JSON: \(error)")
        }
        try self.init(json: value)
    }

    /// Reads a token from a parsed JSON value, in either of the shapes the bytes initializer accepts.
    public init(json value: JSONValue) throws(ApplePayError) {
        guard value.objectValue != nil else { throw ApplePayError(.malformedToken, "the token is not a JSON object") }
        guard let inner = value["paymentData"] else {
            self.init(paymentData: try Self.parsePaymentData(value), paymentMethod: nil, transactionIdentifier: nil)
            return
        }
        let paymentData = try Self.parsePaymentData(inner)
        var method: ApplePayPaymentMethod?
        if let object = value["paymentMethod"] {
            guard object.objectValue != nil else { throw ApplePayError(.malformedToken, "paymentMethod is not an object") }
            method = ApplePayPaymentMethod(
                displayName: object["displayName"]?.stringValue, network: object["network"]?.stringValue,
                type: object["type"]?.stringValue)
        }
        let identifier = try Self.optionalString(value, "transactionIdentifier")
        if let identifier, identifier.lowercased() != paymentData.transactionId.lowercased() {
            throw ApplePayError(
                .malformedToken, "transactionIdentifier \(identifier) differs from header.transactionId \(paymentData.transactionId)")
        }
        self.init(paymentData: paymentData, paymentMethod: method, transactionIdentifier: identifier)
    }

    /// A token from its parts.
    public init(paymentData: ApplePayPaymentData, paymentMethod: ApplePayPaymentMethod?, transactionIdentifier: String?) {
        self.paymentData = paymentData
        self.paymentMethod = paymentMethod
        self.transactionIdentifier = transactionIdentifier
    }

    private static func parsePaymentData(_ value: JSONValue) throws(ApplePayError) -> ApplePayPaymentData {
        guard value.objectValue != nil else { throw ApplePayError(.malformedToken, "paymentData is not a JSON object") }
        let versionText = try string(value, "version")
        guard let version = ApplePayPaymentData.Version(rawValue: versionText) else {
            throw ApplePayError(.malformedToken, "version '\(versionText)' is neither EC_v1 nor RSA_v1")
        }
        guard let header = value["header"], header.objectValue != nil else {
            throw ApplePayError(.malformedToken, "header is missing or not an object")
        }
        let data = try base64(value, "data")
        guard data.count > 16 else { throw ApplePayError(.malformedToken, "data is shorter than a GCM tag") }
        let keyMaterial: ApplePayPaymentData.KeyMaterial
        switch version {
        case .ecV1: keyMaterial = .ephemeralPublicKey(try base64(header, "ephemeralPublicKey", field: "header.ephemeralPublicKey"))
        case .rsaV1: keyMaterial = .wrappedKey(try base64(header, "wrappedKey", field: "header.wrappedKey"))
        }
        let publicKeyHash = try base64(header, "publicKeyHash", field: "header.publicKeyHash")
        guard publicKeyHash.count == 32 else { throw ApplePayError(.malformedToken, "header.publicKeyHash is not 32 bytes") }
        let transactionId = try string(header, "transactionId", field: "header.transactionId")
        guard !transactionId.isEmpty, Hex.decode(transactionId) != nil else {
            throw ApplePayError(.malformedToken, "header.transactionId is not hex")
        }
        var applicationData: [UInt8]?
        if let text = try optionalString(header, "applicationData", field: "header.applicationData") {
            guard let bytes = Hex.decode(text) else { throw ApplePayError(.malformedToken, "header.applicationData is not hex") }
            applicationData = bytes
        }
        return ApplePayPaymentData(
            version: version, data: data, signature: try base64(value, "signature"), keyMaterial: keyMaterial,
            publicKeyHash: publicKeyHash, transactionId: transactionId, applicationData: applicationData)
    }

    private static func string(_ object: JSONValue, _ key: String, field: String? = nil) throws(ApplePayError) -> String {
        guard let text = try optionalString(object, key, field: field) else {
            throw ApplePayError(.malformedToken, "\(field ?? key) is missing")
        }
        return text
    }

    private static func optionalString(_ object: JSONValue, _ key: String, field: String? = nil) throws(ApplePayError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue else { throw ApplePayError(.malformedToken, "\(field ?? key) is not a string") }
        return text
    }

    private static func base64(_ object: JSONValue, _ key: String, field: String? = nil) throws(ApplePayError) -> [UInt8] {
        let text = try string(object, key, field: field)
        guard let data = Data(base64Encoded: text) else { throw ApplePayError(.malformedToken, "\(field ?? key) is not Base64") }
        return [UInt8](data)
    }
}
