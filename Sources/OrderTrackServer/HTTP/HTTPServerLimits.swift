import HummingbirdCore
import NIOCore

/// Limits of the HTTP/1.1 server in front of every route.
enum HTTPServerLimits {
    /// Bytes of the whole header block: far above what Wallet, browsers and merchant clients send, small enough that a
    /// request cannot make the parser buffer much.
    static let maximumHeaderBytes = 64 * 1024
    /// Header fields per request (browsers send about 20).
    static let maximumHeaderCount = 200

    /// The HTTP/1.1 server: these limits, malformed requests answered as JSON, and deadlines. A connection with no
    /// request under way is closed after `idleTimeout`; a request's header block counts as no request until it is
    /// complete, so headers sent slowly (slowloris) are cut by the same deadline. A request's body must arrive within
    /// `requestBodyTimeout` of its headers.
    static func http1Configuration(idleTimeout: Duration, requestBodyTimeout: Duration) -> HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            additionalChannelHandlers: [MalformedRequestHandler(), RequestBodyDeadlineHandler(timeout: TimeAmount(requestBodyTimeout))],
            idleTimeout: TimeAmount(idleTimeout),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: maximumHeaderBytes, maxHeaderListSize: maximumHeaderBytes, maxHeaderFieldCount: maximumHeaderCount))
    }
}
