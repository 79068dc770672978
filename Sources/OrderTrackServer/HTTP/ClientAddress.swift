import HTTPTypes
import Hummingbird

/// Puts the client's address into the context, for the audit trail and the per-client limits: the TCP peer's, or,
/// when the server is told which header a trusted proxy sets (`--client-address-header X-Forwarded-For`), that
/// header's last entry, which the proxy appended. Earlier entries are whatever the client sent and are never trusted.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    /// The header a trusted proxy names the client in; `nil` trusts no header.
    let header: HTTPField.Name?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header else { return try await next(request, context) }
        var context = context
        let entries = request.headers[values: header].flatMap { $0.split(separator: ",") }
        if let last = entries.last?.trimmingCharacters(in: .whitespaces), !last.isEmpty, last.count <= 100 { context.clientAddress = last }
        return try await next(request, context)
    }
}
