import CarrierTestSupport
import CarrierTracking
import Foundation
import TestSupport
import Testing
import WireFormats

/// A key provider that serves one set and counts the calls, or fails.
final class FixedKeyProvider: CarrierKeyProvider, @unchecked Sendable {
    let keySet: ShipEngineKeySet?
    private let lock = NSLock()
    private var asked: [String] = []

    init(_ keySet: ShipEngineKeySet?) { self.keySet = keySet }

    var requests: [String] { lock.withLock { asked } }

    func keySet(containing keyID: String) async throws -> ShipEngineKeySet {
        lock.withLock { asked.append(keyID) }
        guard let keySet else { throw URLError(.cannotConnectToHost) }
        return keySet
    }
}

@Suite(.enabled(if: ExternalTools.hasOpenSSL, "needs the openssl command-line tool"))
struct ShipEngineSignatureTests {
    let key: OpenSSLRSAKey
    let body: [UInt8]
    let timestamp = "2026-11-26T19:35:00.000Z"
    let now = date("2026-11-26T19:36:00Z")

    init() throws {
        key = try OpenSSLRSAKey.shared.get()
        body = try Fixture.bytes("shipengine-track")
    }

    func headers(kid: String = "se-key-1", signature: String, timestamp: String? = nil) -> CarrierRequestHeaders {
        CarrierRequestHeaders([
            "x-shipengine-rsa-sha256-key-id": kid, "x-shipengine-rsa-sha256-signature": signature,
            "x-shipengine-timestamp": timestamp ?? self.timestamp,
        ])
    }

    func verifier(_ provider: (any CarrierKeyProvider)?) -> CarrierWebhookVerifier {
        CarrierWebhookVerifier(provider: .shipengine, secret: nil, keyProvider: provider)
    }

    @Test func acceptsAnOpenSSLSignatureOverTimestampDotBody() async throws {
        let keys = try ShipEngineKeySet(jwks: key.jwks)
        #expect(Array(keys.keys.keys) == ["se-key-1"])
        let signature = try key.sign(Array("\(timestamp).".utf8) + body)
        let provider = FixedKeyProvider(keys)
        try await verifier(provider).verify(body: body, headers: headers(signature: signature), now: now)
        #expect(provider.requests == ["se-key-1"])
    }

    @Test func refusesWrongBodiesKeysAndTimes() async throws {
        let keys = try ShipEngineKeySet(jwks: key.jwks)
        let provider = FixedKeyProvider(keys)
        let signature = try key.sign(Array("\(timestamp).".utf8) + body)
        await expectError(.signatureMismatch) {
            try await verifier(provider).verify(body: body + [0x20], headers: headers(signature: signature), now: now)
        }
        // The body alone signed (no timestamp) does not verify: the timestamp is bound.
        let bodyOnly = try key.sign(body)
        await expectError(.signatureMismatch) { try await verifier(provider).verify(body: body, headers: headers(signature: bodyOnly), now: now) }
        await expectError(.unknownKey) {
            try await verifier(provider).verify(body: body, headers: headers(kid: "rotated", signature: signature), now: now)
        }
        await expectError(.staleTimestamp) {
            try await verifier(provider).verify(body: body, headers: headers(signature: signature), now: now.addingTimeInterval(301))
        }
        await expectError(.malformedSignature) { try await verifier(provider).verify(body: body, headers: headers(signature: "%%%"), now: now) }
        await expectError(.malformedSignature) {
            try await verifier(provider).verify(body: body, headers: headers(signature: signature, timestamp: "yesterday"), now: now)
        }
        await expectError(.missingSignature) { try await verifier(provider).verify(body: body, headers: CarrierRequestHeaders([:]), now: now) }
        // Unsigned, stale or malformed requests never reach the key provider (no JWKS fetch on demand of a stranger).
        #expect(provider.requests == ["se-key-1", "se-key-1", "rotated"])
        await expectError(.notConfigured) { try await verifier(nil).verify(body: body, headers: headers(signature: signature), now: now) }
        await expectError(.unknownKey) {
            try await verifier(FixedKeyProvider(nil)).verify(body: body, headers: headers(signature: signature), now: now)
        }
    }

    @Test func keySetsAreReadWithinBounds() async throws {
        await expectError(.malformedKeySet) { _ = try ShipEngineKeySet(jwks: Array(#"{"keys":[]}"#.utf8)) }
        await expectError(.malformedKeySet) { _ = try ShipEngineKeySet(jwks: Array(#"{"nokeys":1}"#.utf8)) }
        await expectError(.malformedKeySet) { _ = try ShipEngineKeySet(jwks: Array("not json".utf8)) }
        await expectError(.malformedKeySet) {
            _ = try ShipEngineKeySet(jwks: [UInt8](repeating: 0x20, count: ShipEngineKeySet.maximumDocumentSize + 1))
        }
        let many = "{\"keys\":[" + Array(repeating: #"{"kty":"oct"}"#, count: ShipEngineKeySet.maximumKeys + 1).joined(separator: ",") + "]}"
        await expectError(.malformedKeySet) { _ = try ShipEngineKeySet(jwks: Array(many.utf8)) }
        // The same kid twice is ambiguous.
        let text = String(decoding: key.jwks, as: UTF8.self)
        let entry = try #require(text.range(of: #"{"kty":"RSA"#).map { String(text[$0.lowerBound...].dropLast(2)) })
        await expectError(.malformedKeySet) { _ = try ShipEngineKeySet(jwks: Array("{\"keys\":[\(entry),\(entry)]}".utf8)) }
        // A 1024-bit key is skipped, leaving no usable key.
        let small = try OpenSSLRSAKey(bits: 1024, kid: "small")
        await expectError(.malformedKeySet) { _ = try ShipEngineKeySet(jwks: small.jwks) }
        // A key for encryption is skipped.
        await expectError(.malformedKeySet) {
            _ = try ShipEngineKeySet(jwks: Array(text.replacingOccurrences(of: #""use":"sig""#, with: #""use":"enc""#).utf8))
        }
    }
}
