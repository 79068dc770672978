import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Puts the client's address into the context for the audit trail: the TCP peer's, or, when the server is configured
/// to trust a proxy (`--trust-forwarded-for`), the last `X-Forwarded-For` entry, which that proxy appended. Earlier
/// entries are whatever the client sent and are never trusted.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    let trustsForwardedFor: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.clientAddress = Self.address(request, peer: context.peerAddress, trustsForwardedFor: trustsForwardedFor)
        return try await next(request, context)
    }

    static func address(_ request: Request, peer: SocketAddress?, trustsForwardedFor: Bool) -> String? {
        if trustsForwardedFor {
            let entries = request.headers[values: forwardedFor].flatMap { $0.split(separator: ",") }
            if let last = entries.last?.trimmingCharacters(in: .whitespaces), !last.isEmpty, last.count <= 100 { return last }
        }
        return peer?.ipAddress
    }
}
