import Foundation
import OpenAPIRuntime

/// RFC 3339 dates as the server writes them (with milliseconds) and as people write them (whole seconds): each of the
/// runtime's ISO 8601 transcoders reads only one of the two.
struct RFC3339DateTranscoder: DateTranscoder {
    private static let fractional = ISO8601DateTranscoder.iso8601WithFractionalSeconds
    private static let whole = ISO8601DateTranscoder.iso8601

    func encode(_ date: Date) throws -> String { try Self.fractional.encode(date) }

    func decode(_ string: String) throws -> Date {
        do { return try Self.fractional.decode(string) } catch { return try Self.whole.decode(string) }
    }
}
