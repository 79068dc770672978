import CarrierTestSupport
import CarrierTracking
import Foundation
import TestSupport
import Testing

/// Each HMAC scheme with signatures openssl computed, and every way a signature can be wrong.
@Suite(.enabled(if: ExternalTools.hasOpenSSL, "needs the openssl command-line tool"))
struct HMACSignatureTests {
    let now = date("2026-11-26T12:00:00Z")
    var unix: Int { Int(now.timeIntervalSince1970) }

    func verify(_ provider: CarrierProvider, secret: String?, body: [UInt8], headers: [String: String], at time: Date? = nil) async throws {
        try await CarrierWebhookVerifier(provider: provider, secret: secret).verify(
            body: body, headers: CarrierRequestHeaders(headers), now: time ?? now)
    }

    @Test func afterShipAcceptsTheBase64HMACOfTheBody() async throws {
        let body = try Fixture.bytes("aftership-tracking-update")
        let signature = try OpenSSLHMAC.base64(key: "as-secret", message: body)
        try await verify(.aftership, secret: "as-secret", body: body, headers: ["aftership-hmac-sha256": signature])
        // Header names are case-insensitive.
        try await verify(.aftership, secret: "as-secret", body: body, headers: ["AfterShip-HMAC-SHA256": signature])
        await expectError(.signatureMismatch) {
            try await verify(.aftership, secret: "other", body: body, headers: ["aftership-hmac-sha256": signature])
        }
        await expectError(.signatureMismatch) {
            try await verify(.aftership, secret: "as-secret", body: body + [0x20], headers: ["aftership-hmac-sha256": signature])
        }
        await expectError(.missingSignature) { try await verify(.aftership, secret: "as-secret", body: body, headers: [:]) }
        await expectError(.malformedSignature) {
            try await verify(.aftership, secret: "as-secret", body: body, headers: ["aftership-hmac-sha256": "!!"])
        }
        // A truncated digest is refused by length, not compared as a prefix.
        let short = Data(try OpenSSLHMAC.digest(key: "as-secret", message: body).prefix(16)).base64EncodedString()
        await expectError(.signatureMismatch) {
            try await verify(.aftership, secret: "as-secret", body: body, headers: ["aftership-hmac-sha256": short])
        }
    }

    @Test func noSecretFailsClosed() async throws {
        let body = try Fixture.bytes("generic-event")
        for provider in [CarrierProvider.aftership, .easypost, .shippo, .generic] {
            await expectError(.notConfigured) { try await verify(provider, secret: nil, body: body, headers: [:]) }
            await expectError(.notConfigured) { try await verify(provider, secret: "", body: body, headers: [:]) }
        }
        await expectError(.notConfigured) { try await verify(.shipengine, secret: "ignored", body: body, headers: [:]) }
    }

    @Test func easyPostNormalizesTheSecretWithNFKD() async throws {
        let body = try Fixture.bytes("easypost-tracker-updated")
        // "ﬁ" (U+FB01) and the precomposed "é" become "fi" and "e" + U+0301 under NFKD; EasyPost keys the HMAC with that.
        let secret = "\u{FB01}ve-caf\u{E9}"
        let normalized = "five-cafe\u{301}"
        let hex = try OpenSSLHMAC.hex(key: normalized, message: body)
        try await verify(.easypost, secret: secret, body: body, headers: ["X-Hmac-Signature": "hmac-sha256-hex=\(hex)"])
        let raw = try OpenSSLHMAC.hex(key: secret, message: body)
        await expectError(.signatureMismatch) {
            try await verify(.easypost, secret: secret, body: body, headers: ["X-Hmac-Signature": "hmac-sha256-hex=\(raw)"])
        }
        await expectError(.malformedSignature) { try await verify(.easypost, secret: secret, body: body, headers: ["X-Hmac-Signature": hex]) }
        await expectError(.malformedSignature) {
            try await verify(.easypost, secret: secret, body: body, headers: ["X-Hmac-Signature": "hmac-sha256-hex=\(hex.dropLast(2))"])
        }
    }

    @Test(arguments: [CarrierProvider.shippo, .generic])
    func timestampedHMACSignsTimeDotBody(_ provider: CarrierProvider) async throws {
        let header = provider == .shippo ? "Shippo-Auth-Signature" : "OrderTrack-Signature"
        let body = try Fixture.bytes(provider == .shippo ? "shippo-track-updated" : "generic-event")
        func sign(_ t: Int, key: String = "whsec") throws -> String { try OpenSSLHMAC.hex(key: key, message: Array("\(t).".utf8) + body) }
        try await verify(provider, secret: "whsec", body: body, headers: [header: "t=\(unix),v1=\(try sign(unix))"])
        // Within five minutes either way.
        try await verify(provider, secret: "whsec", body: body, headers: [header: "t=\(unix - 300),v1=\(try sign(unix - 300))"])
        try await verify(provider, secret: "whsec", body: body, headers: [header: "t=\(unix + 300),v1=\(try sign(unix + 300))"])
        await expectError(.staleTimestamp) {
            try await verify(provider, secret: "whsec", body: body, headers: [header: "t=\(unix - 301),v1=\(try sign(unix - 301))"])
        }
        await expectError(.staleTimestamp) {
            try await verify(provider, secret: "whsec", body: body, headers: [header: "t=\(unix + 301),v1=\(try sign(unix + 301))"])
        }
        // The timestamp is signed: a fresh t with an old signature does not verify.
        await expectError(.signatureMismatch) {
            try await verify(provider, secret: "whsec", body: body, headers: [header: "t=\(unix),v1=\(try sign(unix - 600))"])
        }
        await expectError(.signatureMismatch) {
            try await verify(provider, secret: "whsec", body: body + [0x0A], headers: [header: "t=\(unix),v1=\(try sign(unix))"])
        }
        await expectError(.missingSignature) { try await verify(provider, secret: "whsec", body: body, headers: [:]) }
        // A repeated header is ambiguous and refused.
        let twice = CarrierRequestHeaders([(name: header, value: "t=\(unix),v1=\(try sign(unix))"), (name: header.lowercased(), value: "t=1,v1=00")])
        await expectError(.missingSignature) {
            try await CarrierWebhookVerifier(provider: provider, secret: "whsec").verify(body: body, headers: twice, now: now)
        }
    }

    @Test func genericAcceptsAnyOfSeveralSignaturesWhileASecretRotates() async throws {
        let body = try Fixture.bytes("generic-event")
        let message = Array("\(unix).".utf8) + body
        let old = try OpenSSLHMAC.hex(key: "old-secret", message: message)
        let new = try OpenSSLHMAC.hex(key: "new-secret", message: message)
        let header = "t=\(unix), v1=\(old), v1=\(new), v0=ignored"
        try await verify(.generic, secret: "new-secret", body: body, headers: ["OrderTrack-Signature": header])
        try await verify(.generic, secret: "old-secret", body: body, headers: ["OrderTrack-Signature": header])
        await expectError(.signatureMismatch) { try await verify(.generic, secret: "third", body: body, headers: ["OrderTrack-Signature": header]) }
    }

    @Test(arguments: [
        "", "v1=" + String(repeating: "a", count: 64), "t=123", "t=abc,v1=" + String(repeating: "a", count: 64),
        "t=1,t=2,v1=" + String(repeating: "a", count: 64), "t=1,v1=zz", "t=1,v1=" + String(repeating: "a", count: 62), "t=1;v1=00",
        "t=1234567890123,v1=" + String(repeating: "a", count: 64), Array(repeating: "x=1", count: 17).joined(separator: ","),
    ])
    func malformedTimestampedHeadersAreRefused(_ value: String) async throws {
        await expectError(.malformedSignature) { _ = try TimestampedSignatureHeader.parse(value, header: "OrderTrack-Signature") }
    }
}
