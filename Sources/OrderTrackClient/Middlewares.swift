import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Signs every request with a merchant API key: a secret key (`sk_…`, every scope) or a restricted one (`rk_…`, the
/// scopes it was created with).
public struct APIKeyMiddleware: ClientMiddleware {
    private let key: String

    /// - Parameter key: the API key, as the dashboard or `POST /api/v1/api-keys` showed it.
    public init(key: String) { self.key = key }

    /// Adds `Authorization: Bearer <key>`.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(key)"
        return try await next(request, body, baseURL)
    }
}

/// Turns every error answer carrying the error envelope into a thrown ``OrderTrackError``, so callers handle one
/// error type instead of one output case per status and operation. The generated client wraps it in `ClientError`;
/// ``OrderTrack`` unwraps it.
public struct ErrorEnvelopeMiddleware: ClientMiddleware {
    /// The largest error body read: envelopes are small, and an answer larger than this is not one.
    private static let maximumBodySize = 1 << 20

    /// A middleware for `Client(serverURL:transport:middlewares:)`.
    public init() {}

    /// Passes 1xx–3xx answers through and throws the error of a 4xx or 5xx one.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400, let responseBody else { return (response, responseBody) }
        let data = try await Data(collecting: responseBody, upTo: Self.maximumBodySize)
        if let error = OrderTrackError(response: response, body: data) { throw error }
        return (response, HTTPBody(data))
    }
}

/// Sends `If-Match` as given. The runtime writes header parameters URI-encoded, so an entity tag's quotes would leave
/// as `%22` and the server would refuse the header (400 if_match_invalid): this middleware decodes it again.
struct IfMatchMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let value = request.headerFields[.ifMatch] { request.headerFields[.ifMatch] = value.removingPercentEncoding ?? value }
        return try await next(request, body, baseURL)
    }
}
