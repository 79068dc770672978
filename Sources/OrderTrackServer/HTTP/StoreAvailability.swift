import HTTPTypes
import Hummingbird
import OrderStore

extension APIError {
    /// Seconds a client should wait before retrying while the database is unreachable.
    static let retryAfterSeconds = 5

    /// The answer for an error thrown by a route: a database outage becomes 503 with `Retry-After` (Wallet and
    /// merchant clients retry later); everything else passes through unchanged.
    static func answering(_ error: any Error) -> any Error {
        guard case OrderStoreError.unavailable(let operation, _) = error else { return error }
        var answer = APIError(
            status: .serviceUnavailable, kind: .unavailable, code: "database_unavailable",
            message: "the database is unreachable (while trying to \(operation)); retry in \(retryAfterSeconds) seconds")
        answer.extraHeaders[.retryAfter] = String(retryAfterSeconds)
        return answer
    }
}

/// Answers 503 with `Retry-After` for any route that fails because the database is unreachable.
struct StoreAvailabilityMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            throw APIError.answering(error)
        }
    }
}
