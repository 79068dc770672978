import HTTPTypes
import Hummingbird
import NIOCore
import OrderTrackServer

/// Authenticates dashboard requests by the session cookie and puts the merchant in the context, as
/// `MerchantAuthenticationMiddleware` does for API keys; routes never look at the cookie.
///
/// Every request that can change something (any method but GET and HEAD) must also carry the session's CSRF token, in
/// the `X-CSRF-Token` header (the pages' scripts) or as the `csrf` field of a form; it is compared in constant time.
struct DashboardAuthenticationMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    /// The largest form a signed-in page posts (a CSRF token and a few fields).
    static let maximumFormSize = 16 * 1024

    /// What a request without a live session gets.
    enum SignedOut: Sendable {
        /// Pages send the browser to the sign-in form, which returns to the page it was on.
        case redirectToSignIn
        /// The pages' JSON calls answer 401 in the error envelope.
        case unauthorized
    }

    let sessions: DashboardSessions
    let signedOut: SignedOut
    /// The largest form read for its CSRF token: ``maximumFormSize``, or more where a page posts a file's text.
    var formLimit = Self.maximumFormSize

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let id = request.cookies[DashboardSessions.cookieName]?.value, let session = try await sessions.session(id: id) else {
            switch signedOut {
            case .redirectToSignIn:
                let path = request.method == .get ? request.uri.path : "/dashboard"
                return .redirect(to: DashboardRoutes.signInURL(returningTo: path), type: .normal)
            case .unauthorized: throw APIError.unauthorized("sign in to the dashboard again: the session is missing or has expired")
            }
        }
        var request = request
        if request.method != .get, request.method != .head {
            let presented = try await Self.presentedCSRFToken(&request, limit: formLimit)
            guard let presented, Secrets.constantTimeEquals(presented, session.csrfToken) else {
                throw APIError.forbidden("csrf_token_invalid", "this request lacks the page's CSRF token; reload the page and try again")
            }
        }
        var context = context
        context.merchantIdentity = MerchantIdentity(merchant: session.merchant, credential: .dashboardSession(csrfToken: session.csrfToken))
        return try await next(request, context)
    }

    /// The token from the header, or else from a form body (which is then kept collected for the route).
    static func presentedCSRFToken(_ request: inout Request, limit: Int) async throws -> String? {
        if let header = request.headers[csrfHeader] { return header }
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else { return nil }
        let body = try await request.collectBody(upTo: limit)
        return DashboardForm(String(buffer: body))["csrf"]
    }
}
