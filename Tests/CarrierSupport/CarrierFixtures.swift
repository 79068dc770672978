import Foundation
import TestSupport
import Testing
import WireFormats

/// The provider payloads under Fixtures/, written from each provider's public documentation: read by the library's
/// parser tests and delivered to the server's webhook route.
public enum Fixture {
    public static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"), "no fixture \(name)")
        return Array(try Data(contentsOf: url))
    }

    /// The fixture with its dates moved from 2026-11-2x to 2026-11-0x: a server on the wall clock refuses scans dated
    /// more than an hour ahead, and the fixtures' latest scans are on 2026-11-26.
    public static func scannedInThePast(_ name: String) throws -> [UInt8] {
        Array(String(decoding: try bytes(name), as: UTF8.self).replacingOccurrences(of: "2026-11-2", with: "2026-11-0").utf8)
    }
}

/// HMACs computed by openssl, the independent check of the signatures the tests send.
public enum OpenSSLHMAC {
    /// The raw HMAC-SHA256 of `message` under `key` (its UTF-8 bytes, as `-hmac` passes them).
    public static func digest(key: String, message: [UInt8]) throws -> [UInt8] {
        try ExternalTools.run("/usr/bin/openssl", ["dgst", "-sha256", "-binary", "-hmac", key], input: message)
    }

    public static func hex(key: String, message: [UInt8]) throws -> String {
        try digest(key: key, message: message).map { String(format: "%02x", $0) }.joined()
    }

    public static func base64(key: String, message: [UInt8]) throws -> String {
        Data(try digest(key: key, message: message)).base64EncodedString()
    }
}

/// An RSA key made by openssl, its JWKS, and signatures openssl made over `"<timestamp>.<body>"`.
public struct OpenSSLRSAKey: Sendable {
    public let directory: URL
    public let jwks: [UInt8]

    public static let shared = Result { try OpenSSLRSAKey(bits: 2048, kid: "se-key-1") }

    public init(bits: Int, kid: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("carrier-rsa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try ExternalTools.requireOpenSSL(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", "key.pem"], in: directory)
        let modulus = try ExternalTools.requireOpenSSL(["rsa", "-in", "key.pem", "-noout", "-modulus"], in: directory)
        let hex = modulus.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        let n = try #require(Hex.decode(hex))
        // 65537, openssl's default public exponent.
        let e: [UInt8] = [0x01, 0x00, 0x01]
        jwks = Array(
            """
            {"keys":[{"kty":"EC","kid":"other","crv":"P-256","x":"AA","y":"AA"},
            {"kty":"RSA","kid":"\(kid)","use":"sig","alg":"RS256","n":"\(Base64URL.encode(n))","e":"\(Base64URL.encode(e))"}]}
            """.utf8)
    }

    /// openssl's RSA-SHA256 (PKCS #1 v1.5) signature of `message`, base64.
    public func sign(_ message: [UInt8]) throws -> String {
        let input = directory.appendingPathComponent("message-\(UUID().uuidString)")
        try Data(message).write(to: input)
        let signature = try ExternalTools.run("/usr/bin/openssl", ["dgst", "-sha256", "-sign", "key.pem", input.path], in: directory)
        return Data(signature).base64EncodedString()
    }
}
