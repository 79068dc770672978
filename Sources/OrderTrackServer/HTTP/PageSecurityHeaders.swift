import HTTPTypes
import Hummingbird

/// The headers every HTML page carries (the dashboard's and Track in Wallet's): a Content-Security-Policy that allows
/// only the server's own scripts, styles and images (no inline script or style, no framing, forms only to this origin),
/// no content sniffing, and no referrer outside the origin (order URLs carry identifiers).
package struct PageSecurityHeaders: RouterMiddleware {
    package typealias Context = OrderTrackRequestContext

    static var contentSecurityPolicy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'"
    }

    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return response
    }
}
