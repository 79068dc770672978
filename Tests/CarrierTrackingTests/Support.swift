import CarrierTracking
import Foundation
import TestSupport
import Testing

/// The provider payloads under Fixtures/, written from each provider's public documentation.
enum Fixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"), "no fixture \(name)")
        return Array(try Data(contentsOf: url))
    }

    static func event(_ name: String, _ provider: CarrierProvider, headers: [String: String] = [:]) throws -> CarrierEvent {
        let result = try CarrierWebhookParser.parse(try bytes(name), provider: provider, headers: CarrierRequestHeaders(headers))
        guard case .event(let event) = result else { throw CarrierWebhookError(.malformedBody, "fixture \(name) parsed to \(result)") }
        return event
    }
}

/// HMACs computed by openssl, the independent check of the signatures the tests send.
enum OpenSSLHMAC {
    /// The raw HMAC-SHA256 of `message` under `key` (its UTF-8 bytes, as `-hmac` passes them).
    static func digest(key: String, message: [UInt8]) throws -> [UInt8] {
        try ExternalTools.run("/usr/bin/openssl", ["dgst", "-sha256", "-binary", "-hmac", key], input: message)
    }

    static func hex(key: String, message: [UInt8]) throws -> String {
        try digest(key: key, message: message).map { String(format: "%02x", $0) }.joined()
    }

    static func base64(key: String, message: [UInt8]) throws -> String {
        Data(try digest(key: key, message: message)).base64EncodedString()
    }
}

/// Asserts that `body` throws a ``CarrierWebhookError`` with `code`, and returns it.
@discardableResult
func expectError(_ code: CarrierWebhookError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async
    -> CarrierWebhookError?
{
    do {
        try await body()
        Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
    } catch let error as CarrierWebhookError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A date from RFC 3339 text.
func date(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("bad test date \(text)") }
    return date
}
