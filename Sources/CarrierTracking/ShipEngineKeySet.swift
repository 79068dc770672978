import OrderModel
import WireFormats
import _CryptoExtras

/// The RSA public keys ShipEngine signs webhooks with, read from its JSON Web Key Set (RFC 7517).
///
/// ShipEngine publishes the set at https://api.shipengine.com/jwks (see
/// https://docs.shipstation.com/apis/docs/guides/webhooks-validation); a connection may name another URL. Fetching and
/// caching the document is the server's job (``CarrierKeyProvider``); this type only reads it, within bounds.
public struct ShipEngineKeySet: Sendable {
    /// The usable keys by key identifier (`kid`).
    public let keys: [String: _RSA.Signing.PublicKey]

    /// The largest JWKS document read.
    public static let maximumDocumentSize = 64 * 1024
    /// The most keys a set may list.
    public static let maximumKeys = 32

    /// Keys by identifier, for callers that already hold them.
    public init(keys: [String: _RSA.Signing.PublicKey]) {
        self.keys = keys
    }

    /// Reads a JWKS document. Keys that are not RSA signing keys for RS256 (`kty`, `use` and `alg` when present), or
    /// shorter than 2048 bits, are skipped: a set may carry keys for other purposes.
    ///
    /// - Throws: ``CarrierWebhookError/Code/malformedKeySet`` when the document is too large, not JSON, has no `keys`
    ///   array, lists too many keys, repeats a `kid`, or holds no usable key.
    public init(jwks document: some Collection<UInt8>) throws(CarrierWebhookError) {
        guard document.count <= Self.maximumDocumentSize else {
            throw CarrierWebhookError(.malformedKeySet, "the JWKS document is \(document.count) bytes; at most \(Self.maximumDocumentSize) are read")
        }
        let root: JSONValue
        do { root = try JSONValue.parse(document) } catch { throw CarrierWebhookError(.malformedKeySet, "the JWKS document: \(error)") }
        guard let entries = root["keys"]?.arrayValue else {
            throw CarrierWebhookError(.malformedKeySet, "the JWKS document has no \"keys\" array")
        }
        guard entries.count <= Self.maximumKeys else {
            throw CarrierWebhookError(.malformedKeySet, "the JWKS document lists \(entries.count) keys; at most \(Self.maximumKeys) are read")
        }
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for entry in entries {
            guard entry["kty"]?.stringValue == "RSA", let kid = entry["kid"]?.stringValue, !kid.isEmpty,
                entry["use"].map({ $0.stringValue == "sig" }) ?? true, entry["alg"].map({ $0.stringValue == "RS256" }) ?? true,
                let modulus = entry["n"]?.stringValue.flatMap(Base64URL.decode), let exponent = entry["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
            else { continue }
            guard keys[kid] == nil else { throw CarrierWebhookError(.malformedKeySet, "the JWKS document repeats kid \"\(kid.prefix(64))\"") }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw CarrierWebhookError(.malformedKeySet, "the JWKS document holds no RSA signing key of 2048 bits or more") }
        self.keys = keys
    }
}

/// Where ShipEngine's keys come from: the server's seam for fetching the JWKS over HTTP and caching it.
public protocol CarrierKeyProvider: Sendable {
    /// A key set that should hold `keyID`: the cached set when it does, otherwise a fresh fetch (which the
    /// implementation rate-limits, so that signatures naming invented keys cannot make it fetch on every request).
    ///
    /// The verifier asks only after the signature headers parsed and the timestamp is fresh.
    func keySet(containing keyID: String) async throws -> ShipEngineKeySet
}
