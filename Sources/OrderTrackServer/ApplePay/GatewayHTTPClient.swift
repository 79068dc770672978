import AsyncHTTPClient
import NIOCore
import ServiceLifecycle
import Synchronization

/// The HTTP client merchant validation talks to Apple's gateway with: one for the server's life, never following a
/// redirect (audit L17).
///
/// The allow-list judges only the URL the browser gave; a client that follows redirects (as `HTTPClient.shared` does,
/// to any host and from https to http) would carry the request past it, so a 3xx is answered like any failure. The
/// client starts on first use, so a server that never validates a merchant opens nothing, and shuts down with the
/// server, after the requests in flight.
final class GatewayHTTPClient: Service, Sendable {
    /// Why a request was not sent.
    struct ShutDown: Error, CustomStringConvertible {
        var description: String { "the server is shutting down and sends no new gateway requests" }
    }

    private enum State {
        case idle
        case running(HTTPClient)
        case stopped
    }

    private let state = Mutex(State.idle)

    /// Sends `request`, waiting at most `timeout` for the response head.
    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        try await client().execute(request, timeout: timeout)
    }

    /// Keeps the client until graceful shutdown, then closes its connections.
    func run() async throws {
        try? await gracefulShutdown()
        let started = state.withLock { state -> HTTPClient? in
            defer { state = .stopped }
            if case .running(let client) = state { return client }
            return nil
        }
        try await started?.shutdown()
    }

    private func client() throws(ShutDown) -> HTTPClient {
        try state.withLock { state throws(ShutDown) in
            switch state {
            case .idle:
                var configuration = HTTPClient.Configuration()
                configuration.redirectConfiguration = .disallow
                let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
                state = .running(client)
                return client
            case .running(let client):
                return client
            case .stopped:
                throw ShutDown()
            }
        }
    }
}
