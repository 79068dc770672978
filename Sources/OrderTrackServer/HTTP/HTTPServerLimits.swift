import HummingbirdCore
import NIOCore

/// Limits of the HTTP/1.1 server in front of every route.
enum HTTPServerLimits {
    /// Bytes of the whole header block: far above what Wallet, browsers and merchant clients send, small enough that a
    /// request cannot make the parser buffer much.
    static let maximumHeaderBytes = 64 * 1024
    /// Header fields per request (browsers send about 20).
    static let maximumHeaderCount = 200
    /// A connection with no request under way is closed after this long (slowloris connections that never finish their
    /// headers included); longer than the 60 s that load balancers commonly keep idle connections, so they close first.
    static let idleTimeout: TimeAmount = .seconds(75)

    /// The HTTP/1.1 server: these limits, malformed requests answered as JSON, and a deadline for request bodies.
    static func http1Configuration(requestBodyTimeout: Duration) -> HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            additionalChannelHandlers: [MalformedRequestHandler(), RequestBodyDeadlineHandler(timeout: TimeAmount(requestBodyTimeout))],
            idleTimeout: idleTimeout,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: maximumHeaderBytes, maxHeaderListSize: maximumHeaderBytes, maxHeaderFieldCount: maximumHeaderCount))
    }
}
