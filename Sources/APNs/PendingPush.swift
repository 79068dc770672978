import NIOCore
import NIOHPACK
import NIOHTTP2

/// APNs' answer to one request: what the client needs to classify it.
struct APNsResponse: Sendable {
    var status: Int
    var apnsID: String?
    var body: ByteBuffer?
}

/// Why a request got no answer from APNs.
enum APNsTransportError: Error, Sendable, CustomStringConvertible {
    /// No answer before the send's deadline.
    case timedOut(Duration)
    /// The connection or the stream closed before APNs answered.
    case connectionLost(String)
    /// The server did not agree to speak HTTP/2.
    case noHTTP2(negotiated: String?)
    /// `shutdown()` was called.
    case shutDown

    var description: String {
        switch self {
        case .timedOut(let timeout): return "no answer within \(timeout)"
        case .connectionLost(let detail): return detail
        case .noHTTP2(let negotiated):
            return "the server negotiated \(negotiated.map { "ALPN \"\($0)\"" } ?? "no ALPN protocol") instead of h2: is the endpoint APNs?"
        case .shutDown: return "the APNs client was shut down"
        }
    }
}

/// One attempt to send a push: made by the sending task, then touched only on the connection manager's event loop.
final class PendingPush: @unchecked Sendable {
    let headers: HPACKHeaders
    let body: ByteBuffer?
    let deadline: NIODeadline
    /// The stream carrying the request once one is open, to reset it when the deadline passes.
    var stream: (connection: APNsConnection, id: HTTP2StreamID)?
    private var continuation: UnsafeContinuation<Result<APNsResponse, any Error>, Never>?

    init(headers: HPACKHeaders, body: ByteBuffer?, deadline: NIODeadline, continuation: UnsafeContinuation<Result<APNsResponse, any Error>, Never>) {
        self.headers = headers
        self.body = body
        self.deadline = deadline
        self.continuation = continuation
    }

    /// Whether the sender already has its answer.
    var isDone: Bool { continuation == nil }

    /// Hands the sender its answer; later calls are ignored (a timeout and a late answer may race).
    func complete(_ result: Result<APNsResponse, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(returning: result)
    }
}
