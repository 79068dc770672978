import NIOCore
import NIOHTTP2

/// One HTTP/2 connection to APNs and its stream accounting; touched only on its event loop.
final class APNsConnection: @unchecked Sendable {
    let channel: any Channel
    let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS; 100 (what NIOHTTP2 assumes) until its SETTINGS arrive.
    var maxStreams = 100
    /// Streams opened and not yet closed.
    var openStreams = 0
    /// After GOAWAY no new stream may start here; the connection closes once its streams are done.
    var goingAway = false
    /// The first error the connection saw (a TLS alert, a protocol error): what its unanswered streams report.
    var failure: (any Error)?

    init(channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer) {
        self.channel = channel
        self.multiplexer = multiplexer
    }
}

/// Sits after the HTTP/2 handler and tells the manager about the connection-level frames and events it cares about.
final class ConnectionEventsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let connection: APNsConnection
    private let manager: APNsConnectionManager

    init(connection: APNsConnection, manager: APNsConnectionManager) {
        self.connection = connection
        self.manager = manager
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data).payload {
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                manager.maxStreamsChanged(on: connection, to: setting.value)
            }
        case .goAway:
            manager.goingAway(connection)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The streams only see their closing; keep the reason for them. A TLS failure closes the channel by itself.
        if connection.failure == nil { connection.failure = error }
    }

    func channelInactive(context: ChannelHandlerContext) {
        manager.connectionClosed(connection)
        context.fireChannelInactive()
    }
}
