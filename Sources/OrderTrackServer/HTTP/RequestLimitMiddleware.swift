import Foundation
import HTTPTypes
import Hummingbird
import RequestSyntax

/// The request rates of ``LimitsConfiguration``, kept by one middleware in front of every route: per client address,
/// per order token (Wallet web service), per API key (merchant API), for the device log endpoint, and a back-off once
/// an address has had too many 401s. Each is a ``TokenBuckets`` in this instance's memory; past a limit the answer is
/// 429 with `Retry-After` and the JSON error envelope, and the request goes no further.
struct RequestLimitMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static let deviceLogPath = "/wallet/v1/log"

    private let perAddress: TokenBuckets?
    private let perOrderToken: TokenBuckets?
    private let perAPIKey: TokenBuckets?
    private let failedAuthentication: TokenBuckets?
    private let deviceLog: TokenBuckets?
    /// Paths whose `POST` presents a secret in its body (the dashboard's sign-in form), counted as an `Authorization`
    /// header is by the failed-authentication limit.
    private let secretFormPaths: Set<String>

    init(limits: LimitsConfiguration, secretFormPaths: Set<String>, clock: ServerClock) {
        func buckets(_ limit: RateLimit?) -> TokenBuckets? {
            limit.map { TokenBuckets(limit: $0, trackedKeys: limits.trackedClients, clock: clock) }
        }
        perAddress = buckets(limits.perClientAddress)
        perOrderToken = buckets(limits.perOrderToken)
        perAPIKey = buckets(limits.perAPIKey)
        failedAuthentication = buckets(limits.failedAuthentication)
        deviceLog = buckets(limits.deviceLogRequests)
        self.secretFormPaths = secretFormPaths
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let address = context.clientAddress ?? "unknown"
        let credentials = request.headers[.authorization].flatMap(AuthorizationCredentials.parse)
        let presentsSecret = credentials != nil || (request.method == .post && secretFormPaths.contains(request.uri.path))
        if presentsSecret, let wait = failedAuthentication?.emptyFor(address) {
            throw APIError.tooManyRequests("too many failed authentications from this address (--rate-limit-failed-auth)", retryAfter: wait)
        }
        if let wait = perAddress?.take(address) {
            throw APIError.tooManyRequests("request rate of this client address (--rate-limit-per-address)", retryAfter: wait)
        }
        if request.uri.path == Self.deviceLogPath, let wait = deviceLog?.take(address) {
            throw APIError.tooManyRequests("device log requests of this client address (--rate-limit-device-log)", retryAfter: wait)
        }
        switch credentials {
        case .appleOrder(let token):
            if let wait = perOrderToken?.take(token) {
                throw APIError.tooManyRequests("request rate of this order's authentication token (--rate-limit-per-order-token)", retryAfter: wait)
            }
        case .bearer(let key), .basic(let key, _):
            if let wait = perAPIKey?.take(key) {
                throw APIError.tooManyRequests("request rate of this API key (--rate-limit-per-api-key)", retryAfter: wait)
            }
        case nil:
            break
        }
        do {
            let response = try await next(request, context)
            if response.status == .unauthorized { _ = failedAuthentication?.take(address) }
            return response
        } catch let error as any HTTPResponseError where error.status == .unauthorized {
            _ = failedAuthentication?.take(address)
            throw error
        }
    }
}
