import HTTPTypes
import Hummingbird

/// The headers every dashboard answer carries: a Content-Security-Policy that allows only the server's own scripts,
/// styles and images (no inline script or style, no framing, forms only to this origin), no content sniffing, and no
/// referrer outside the origin (order URLs carry identifiers).
struct DashboardSecurityHeaders: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static var contentSecurityPolicy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return response
    }
}
