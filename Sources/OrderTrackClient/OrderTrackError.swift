import Foundation
import HTTPTypes

/// An error answer of the merchant API: its status and the error envelope's fields (the server's `Error` schema).
public struct OrderTrackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One validation problem of an invalid order (422 order_invalid).
    public struct Problem: Sendable, Equatable, Decodable {
        /// The order field, as a JSON path.
        public var path: String
        /// What is wrong with it.
        public var message: String
        /// error, warning or note.
        public var severity: String
    }

    /// The HTTP status, e.g. 422.
    public var status: Int
    /// The error's class: invalid_request_error, authentication_error, permission_error, rate_limit_error…
    public var type: String
    /// The stable machine-readable reason, e.g. order_invalid, missing_scope, order_version_mismatch.
    public var code: String
    /// What went wrong and how to fix it.
    public var message: String
    /// The parameter or order field the error is about.
    public var param: String?
    /// Every validation problem of an invalid order.
    public var problems: [Problem]
    /// 412 order_version_mismatch: the order's current version.
    public var currentVersion: Int?
    /// 403 scope_missing: the scopes the call needs (any one of them); empty otherwise.
    public var requiredScopes: [String] = []
    /// 429 and 503: the seconds the server asks to wait before retrying (Retry-After).
    public var retryAfter: Int?

    /// `OrderTrack error 422 order_invalid: …`
    public var description: String { "OrderTrack error \(status) \(code): \(message)" }
}

extension OrderTrackError {
    private struct Envelope: Decodable {
        struct Body: Decodable {
            var type: String
            var code: String
            var message: String
            var param: String?
            var problems: [Problem]?
            var currentVersion: Int?
            var requiredScopes: [String]?
        }
        var error: Body
    }

    /// The error of an answer whose body is the error envelope; nil for any other body, which the generated client
    /// then reports as an undocumented answer.
    init?(response: HTTPResponse, body: Data) {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: body) else { return nil }
        let error = envelope.error
        self.init(
            status: response.status.code, type: error.type, code: error.code, message: error.message, param: error.param,
            problems: error.problems ?? [], currentVersion: error.currentVersion, requiredScopes: error.requiredScopes ?? [],
            retryAfter: response.headerFields[.retryAfter].flatMap { Int($0) }
        )
    }
}

extension OrderTrackError {
    /// An answer the document declares but that is neither the call's success nor an error envelope (e.g. a 3xx).
    init(unexpected output: Any) {
        self.init(
            status: 0, type: "api_error", code: "unexpected_response", message: "The server answered \(output)", param: nil, problems: [],
            currentVersion: nil, requiredScopes: [], retryAfter: nil)
    }
}
