import Hummingbird
import OrderModel

/// Reading path parameters and bodies the same way on every endpoint, with the same errors.
package enum RequestParsing {
    /// A path parameter, percent-decoded (clients may escape `:`, `@` or `+`), that must be an identifier
    /// (``Identifiers/rule``).
    package static func identifier(_ name: String, _ context: some RequestContext) throws -> String {
        // Foundation's percent-decoding parses the text as a URL component: skipped when there is nothing to decode.
        guard let raw = context.parameters.get(name), let value = raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding : raw,
            Identifiers.isValid(value)
        else {
            throw APIError.badRequest("invalid_path", "\(name) must be \(Identifiers.rule)", param: name)
        }
        return value
    }

    /// The `limit` query parameter of a list: a whole number from 1 to `maximum`, `default` when absent.
    static func limit(_ request: Request, default defaultLimit: Int, maximum: Int) throws -> Int {
        guard let text = request.uri.queryParameters["limit"] else { return defaultLimit }
        guard let limit = Int(String(text)), (1...maximum).contains(limit) else {
            throw APIError.badRequest("limit_invalid", "limit must be a whole number from 1 to \(maximum)", param: "limit")
        }
        return limit
    }

    /// The body, refused with 413 beyond `limit` bytes.
    package static func body(_ request: Request, limit: Int) async throws -> [UInt8] {
        var request = request
        return Array(try await request.collectBody(upTo: limit).readableBytesView)
    }

    /// Parses JSON, answering 400 with the parser's line, column and reason.
    static func json(_ bytes: [UInt8]) throws -> JSONValue {
        do throws(JSONParseError) {
            return try JSONValue.parse(bytes)
        } catch {
            throw OrderTrackError.invalidJSON(error)
        }
    }

    /// The body parsed as JSON.
    static func jsonBody(_ request: Request, limit: Int) async throws -> JSONValue {
        try json(try await body(request, limit: limit))
    }

    /// The body parsed as JSON on the CPU pool: merchant bodies run to megabytes.
    package static func jsonBody(_ request: Request, limit: Int, on cpu: CPUWorkPool) async throws -> JSONValue {
        let bytes = try await body(request, limit: limit)
        return try await cpu.run { try json(bytes) }
    }
}
