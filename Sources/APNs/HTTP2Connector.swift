import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// Opens TLS connections that negotiated h2 by ALPN and sets up HTTP/2 on them.
struct HTTP2Connector: Sendable {
    /// Longest wait for TCP connect, and again for the TLS handshake.
    static let connectTimeout = TimeAmount.seconds(10)

    let host: String
    let port: Int
    let sslContext: NIOSSLContext
    /// The last stream ID of a connection (``APNsConnection``).
    var lastStreamID: HTTP2StreamID = .maxID

    /// A connection ready for streams, or the real reason there is none (TLS trust, refused certificate, refused TCP).
    func connect(on eventLoop: any EventLoop, manager: APNsConnectionManager) -> EventLoopFuture<APNsConnection> {
        let ready = eventLoop.makePromise(of: APNsConnection.self)
        // SNI and name checks take a host name; for an IP literal NIOSSL checks the certificate against the peer address.
        let serverHostname = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(Self.connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [sslContext, lastStreamID] channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
                    try pipeline.addHandler(FlushCoalescingHandler())
                    try pipeline.addHandler(HTTP2SetupHandler(ready: ready, manager: manager, lastStreamID: lastStreamID))
                }
            }
        bootstrap.connect(host: host, port: port).whenComplete { result in
            switch result {
            case .success(let channel):
                // Give up on a handshake that never finishes.
                let timeout = channel.eventLoop.scheduleTask(in: Self.connectTimeout) {
                    ready.fail(APNsTransportError.connectionLost("no TLS handshake within \(Self.connectTimeout)"))
                    channel.close(promise: nil)
                }
                ready.futureResult.whenComplete { _ in timeout.cancel() }
            case .failure(let error):
                ready.fail(error)
            }
        }
        return ready.futureResult
    }
}

/// Waits for the TLS handshake, then puts HTTP/2 into the pipeline before any frame is read, and removes itself.
final class HTTP2SetupHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let ready: EventLoopPromise<APNsConnection>
    private let manager: APNsConnectionManager
    private let lastStreamID: HTTP2StreamID

    init(ready: EventLoopPromise<APNsConnection>, manager: APNsConnectionManager, lastStreamID: HTTP2StreamID) {
        self.ready = ready
        self.manager = manager
        self.lastStreamID = lastStreamID
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .handshakeCompleted(let negotiated)? = event as? TLSUserEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard negotiated == "h2" else {
            ready.fail(APNsTransportError.noHTTP2(negotiated: negotiated))
            context.close(promise: nil)
            return
        }
        do {
            let pipeline = context.pipeline.syncOperations
            // No stream multiplexer: APNsConnection writes and reads the streams' frames itself. APNs never opens
            // streams towards the provider, and the settings refuse server push.
            let settings = nioDefaultSettings + [HTTP2Setting(parameter: .enablePush, value: 0)]
            try pipeline.addHandler(NIOHTTP2Handler(mode: .client, initialSettings: settings), position: .last)
            let connection = APNsConnection(channel: context.channel, manager: manager, lastStreamID: lastStreamID)
            try pipeline.addHandler(connection, position: .last)
            pipeline.removeHandler(context: context, promise: nil)
            ready.succeed(connection)
        } catch {
            ready.fail(error)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        ready.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ready.fail(APNsTransportError.connectionLost("the server closed the connection during the TLS handshake"))
        context.fireChannelInactive()
    }
}
