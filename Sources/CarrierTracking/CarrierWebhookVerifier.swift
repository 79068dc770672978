import Crypto
import Foundation
import OrderModel
import WireFormats
import _CryptoExtras

/// Checks a carrier webhook's signature on the raw body, before anything parses it, failing closed.
///
/// Each provider's own documented scheme:
/// - AfterShip: `aftership-hmac-sha256` = base64(HMAC-SHA256(secret, body))
///   (https://www.aftership.com/docs/tracking/webhook/webhook-signature). AfterShip signs no timestamp, so replays
///   are caught by the event's idempotency key, not here.
/// - EasyPost: `X-Hmac-Signature: hmac-sha256-hex=<hex HMAC-SHA256(NFKD(secret), body)>`
///   (https://docs.easypost.com/docs/webhooks).
/// - Shippo: `Shippo-Auth-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`
///   (https://docs.goshippo.com/docs/tracking/webhooks), the timestamp within ``tolerance``.
/// - ShipEngine: RSA-SHA256 (PKCS #1 v1.5) by the key `x-shipengine-rsa-sha256-key-id` names, signature
///   `x-shipengine-rsa-sha256-signature` (base64) over `"<x-shipengine-timestamp>.<body>"`, the timestamp (RFC 3339)
///   within ``tolerance`` (https://docs.shipstation.com/apis/docs/guides/webhooks-validation).
/// - Generic: `OrderTrack-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, the timestamp
///   within ``tolerance``; several `v1=` allowed while a secret rotates.
///
/// Every comparison is constant-time and checks lengths (swift-crypto's `isValidAuthenticationCode`).
public struct CarrierWebhookVerifier: Sendable {
    /// The scheme to check.
    public var provider: CarrierProvider
    /// The shared secret of the HMAC schemes; `nil` (or empty) fails closed.
    public var secret: String?
    /// Where ShipEngine's keys come from; `nil` fails closed for ShipEngine.
    public var keyProvider: (any CarrierKeyProvider)?
    /// How far a signed timestamp may be from `now`, either way.
    public var tolerance: Duration

    /// The header names, as the providers document them.
    public enum Header {
        /// AfterShip's base64 HMAC.
        public static let afterShip = "aftership-hmac-sha256"
        /// EasyPost's hex HMAC.
        public static let easyPost = "X-Hmac-Signature"
        /// Shippo's timestamped HMAC.
        public static let shippo = "Shippo-Auth-Signature"
        /// ShipEngine's key identifier.
        public static let shipEngineKeyID = "x-shipengine-rsa-sha256-key-id"
        /// ShipEngine's base64 RSA signature.
        public static let shipEngineSignature = "x-shipengine-rsa-sha256-signature"
        /// ShipEngine's signed timestamp.
        public static let shipEngineTimestamp = "x-shipengine-timestamp"
        /// OrderTrack's generic timestamped HMAC.
        public static let generic = "OrderTrack-Signature"
    }

    /// A verifier for `provider` with its secret or key provider.
    public init(provider: CarrierProvider, secret: String?, keyProvider: (any CarrierKeyProvider)? = nil, tolerance: Duration = .seconds(300)) {
        self.provider = provider
        self.secret = secret
        self.keyProvider = keyProvider
        self.tolerance = tolerance
    }

    /// Verifies `body` against `headers` at time `now`; returns normally only when the signature is good.
    ///
    /// - Throws: ``CarrierWebhookError`` whose ``CarrierWebhookError/isAuthenticationFailure`` is true.
    public func verify(body: [UInt8], headers: CarrierRequestHeaders, now: Date) async throws(CarrierWebhookError) {
        switch provider {
        case .aftership:
            let key = try hmacKey()
            let signature = try required(Header.afterShip, in: headers)
            guard let bytes = Data(base64Encoded: String(signature.trimmingSpaces())) else {
                throw CarrierWebhookError(.malformedSignature, "header \(Header.afterShip) must be base64")
            }
            try check(HMAC<SHA256>.isValidAuthenticationCode(bytes, authenticating: body, using: key), Header.afterShip)
        case .easypost:
            let key = try hmacKey(normalized: true)
            let signature = try EasyPostSignatureHeader.parse(try required(Header.easyPost, in: headers))
            try check(HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: body, using: key), Header.easyPost)
        case .shippo, .generic:
            let name = provider == .shippo ? Header.shippo : Header.generic
            let key = try hmacKey()
            let header = try TimestampedSignatureHeader.parse(try required(name, in: headers), header: name)
            try checkFreshness(Date(timeIntervalSince1970: TimeInterval(header.seconds)), now: now, header: name)
            let signed = Array((header.timestamp + ".").utf8) + body
            // Every candidate is checked, so the time taken does not tell which one matched.
            let matches = header.signatures.reduce(false) { found, signature in
                HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: key) || found
            }
            try check(matches, name)
        case .shipengine:
            guard let keyProvider else {
                throw CarrierWebhookError(.notConfigured, "no JWKS is configured for ShipEngine; verification fails closed")
            }
            let signature = try ShipEngineSignature(headers: headers)
            try checkFreshness(signature.signedAt, now: now, header: Header.shipEngineTimestamp)
            let keys: ShipEngineKeySet
            do { keys = try await keyProvider.keySet(containing: signature.keyID) } catch let error as CarrierWebhookError {
                throw error
            } catch {
                throw CarrierWebhookError(.unknownKey, "the JWKS could not be had: \(error)")
            }
            try signature.verify(body: body, keys: keys)
        }
    }

    private func hmacKey(normalized: Bool = false) throws(CarrierWebhookError) -> SymmetricKey {
        guard let secret, !secret.isEmpty else {
            throw CarrierWebhookError(.notConfigured, "no webhook secret is configured for \(provider.rawValue); verification fails closed")
        }
        // EasyPost normalizes the secret with NFKD before using it as the key (its client libraries do the same).
        let text = normalized ? secret.decomposedStringWithCompatibilityMapping : secret
        return SymmetricKey(data: Array(text.utf8))
    }

    private func required(_ name: String, in headers: CarrierRequestHeaders) throws(CarrierWebhookError) -> String {
        guard let value = try headers.single(name) else { throw CarrierWebhookError(.missingSignature, "header \(name) is missing") }
        return value
    }

    private func checkFreshness(_ signedAt: Date, now: Date, header: String) throws(CarrierWebhookError) {
        let skew = abs(signedAt.timeIntervalSince(now))
        let limit = Double(tolerance.components.seconds)
        guard skew <= limit else {
            throw CarrierWebhookError(
                .staleTimestamp, "header \(header): the signed time is \(Int(skew)) s from now; at most \(Int(limit)) s are accepted")
        }
    }

    private func check(_ valid: Bool, _ header: String) throws(CarrierWebhookError) {
        guard valid else { throw CarrierWebhookError(.signatureMismatch, "header \(header) does not match the body") }
    }
}

/// Signs a body in OrderTrack's generic format: what the server's webhooks send merchants, and what senders written in
/// Swift, the benchmark and the tests send carrier connections. ``CarrierWebhookVerifier`` checks it.
public enum GenericEventSigner {
    /// The `OrderTrack-Signature` value for `body` at `time`: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
    /// "<t>.<body>")>`.
    public static func signatureHeader(body: [UInt8], secret: String, at time: Date) -> String {
        signatureHeader(body: body, secrets: [secret], at: time)
    }

    /// The value signed with each of `secrets` in turn, `t=<t>,v1=<first>,v1=<second>`: while a secret rotates, a
    /// receiver holding either one accepts it.
    public static func signatureHeader(body: [UInt8], secrets: [String], at time: Date) -> String {
        let timestamp = String(Int64(time.timeIntervalSince1970.rounded(.down)))
        let signed = Array((timestamp + ".").utf8) + body
        let signatures = secrets.map { "v1=" + Hex.encode(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Array($0.utf8)))) }
        return (["t=\(timestamp)"] + signatures).joined(separator: ",")
    }
}

/// ShipEngine's three signature headers, read but not yet checked.
public struct ShipEngineSignature: Sendable, Hashable {
    /// The key identifier (`kid` in the JWKS).
    public var keyID: String
    /// The RSA signature bytes.
    public var signature: [UInt8]
    /// The timestamp header as sent; it is signed verbatim.
    public var timestamp: String
    /// The timestamp's value.
    public var signedAt: Date

    /// Reads the headers.
    ///
    /// - Throws: ``CarrierWebhookError/Code/missingSignature`` when one is absent (ShipEngine's guide answers 404 then;
    ///   that is the server's choice), ``CarrierWebhookError/Code/malformedSignature`` when the signature is not base64
    ///   or the timestamp is neither RFC 3339 nor unix seconds.
    public init(headers: CarrierRequestHeaders) throws(CarrierWebhookError) {
        typealias Header = CarrierWebhookVerifier.Header
        guard let keyID = try headers.single(Header.shipEngineKeyID), let signature = try headers.single(Header.shipEngineSignature),
            let timestamp = try headers.single(Header.shipEngineTimestamp)
        else {
            throw CarrierWebhookError(
                .missingSignature,
                "ShipEngine webhooks need \(Header.shipEngineKeyID), \(Header.shipEngineSignature) and \(Header.shipEngineTimestamp)")
        }
        let keyText = keyID.trimmingSpaces()
        guard !keyText.isEmpty, keyText.utf8.count <= 256 else {
            throw CarrierWebhookError(.malformedSignature, "header \(Header.shipEngineKeyID) must be 1 to 256 bytes")
        }
        guard let bytes = Data(base64Encoded: String(signature.trimmingSpaces())), !bytes.isEmpty, bytes.count <= 1024 else {
            throw CarrierWebhookError(.malformedSignature, "header \(Header.shipEngineSignature) must be a base64 RSA signature")
        }
        let time = String(timestamp.trimmingSpaces())
        guard let signedAt = CarrierDate.parseTimestamp(time) else {
            throw CarrierWebhookError(.malformedSignature, "header \(Header.shipEngineTimestamp) must be an RFC 3339 date-time or unix seconds")
        }
        self.keyID = String(keyText)
        self.signature = Array(bytes)
        self.timestamp = time
        self.signedAt = signedAt
    }

    /// Checks the signature over `"<timestamp>.<body>"` with the key ``keyID`` names in `keys`.
    ///
    /// The signed content is not spelled out byte for byte in ShipEngine's guide; `"<timestamp>.<body>"` (the
    /// timestamp header verbatim, a full stop, the raw body) is what independent verifiers of ShipStation API webhooks
    /// check, the same construction as Shippo's and Stripe's, and it binds the timestamp so it cannot be replayed with
    /// a fresh one.
    ///
    /// - Throws: ``CarrierWebhookError/Code/unknownKey`` or ``CarrierWebhookError/Code/signatureMismatch``.
    public func verify(body: [UInt8], keys: ShipEngineKeySet) throws(CarrierWebhookError) {
        guard let key = keys.keys[keyID] else { throw CarrierWebhookError(.unknownKey, "the JWKS has no key \"\(keyID.prefix(64))\"") }
        let signed = Array((timestamp + ".").utf8) + body
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5) else {
            throw CarrierWebhookError(.signatureMismatch, "header \(CarrierWebhookVerifier.Header.shipEngineSignature) does not match the body")
        }
    }
}
