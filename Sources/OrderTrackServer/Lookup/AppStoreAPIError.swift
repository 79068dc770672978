import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OrderModel
import OrderPersistence

/// The answers of the App Store Server API's error cases, in Apple's shape (`{"errorCode", "errorMessage"}`, or no
/// body for 401), not OrderTrack's error envelope. Every error of the `/inApps` routes is mapped here, once.
enum AppStoreAPIError: Error, Sendable, Equatable {
    /// Any problem with the JWT: 401 without a body, as Apple documents it.
    case unauthorized
    /// GeneralBadRequestError: a malformed order id.
    case badRequest
    /// RateLimitExceededError, with the seconds for `Retry-After`.
    case rateLimitExceeded(retryAfter: Int)
    /// GeneralInternalRetryableError: the database is unreachable or busy.
    case internalRetryable
    /// GeneralInternalError: anything else.
    case `internal`

    var status: HTTPResponse.Status {
        switch self {
        case .unauthorized: .unauthorized
        case .badRequest: .badRequest
        case .rateLimitExceeded: .tooManyRequests
        case .internalRetryable, .internal: .internalServerError
        }
    }

    /// Apple's error code and message, `nil` for 401.
    var body: (code: Int, message: String)? {
        switch self {
        case .unauthorized: nil
        case .badRequest: (4_000_000, "Invalid request.")
        case .rateLimitExceeded: (4_290_000, "Rate limit exceeded.")
        case .internalRetryable: (5_000_001, "An unknown error occurred. Please try again.")
        case .internal: (5_000_000, "An unknown error occurred.")
        }
    }

    /// The answer for any error thrown while serving an `/inApps` route.
    init(answering error: any Error) {
        switch error {
        case let error as AppStoreAPIError: self = error
        case OrderStoreError.unavailable, OrderStoreError.busy, OrderStoreError.storeClosed: self = .internalRetryable
        default: self = .internal
        }
    }

    /// The response. `Content-Type` is exactly `application/json`: Apple's client ignores error bodies otherwise.
    var response: Response {
        var headers: HTTPFields = [:]
        if case .rateLimitExceeded(let seconds) = self { headers[.retryAfter] = String(seconds) }
        guard let body else { return Response(status: status, headers: headers) }
        headers[.contentType] = "application/json"
        let json: JSONValue = ["errorCode": .number(String(body.code)), "errorMessage": .string(body.message)]
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.serialized())))
    }
}

/// Answers every error of the routes behind it as ``AppStoreAPIError``, logging server faults.
struct AppStoreErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = AppStoreAPIError(answering: error)
            if answer.status.kind == .serverError {
                context.logger.error(
                    "order lookup failed", metadata: ["path": .string(request.uri.path), "error": .string(String(describing: error))])
            }
            return answer.response
        }
    }
}
