import NIOCore
import NIOHPACK
import NIOHTTP2

/// Carries one request on its own HTTP/2 stream: writes HEADERS (+ DATA), reads the answer's HEADERS (+ DATA).
final class APNsStreamHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// APNs error bodies are a few dozen bytes; anything past this is not read.
    static let maximumBodyBytes = 64 * 1024

    private let push: PendingPush
    private let connection: APNsConnection
    private let manager: APNsConnectionManager
    private var status: Int?
    private var apnsID: String?
    private var body: ByteBuffer?

    init(push: PendingPush, connection: APNsConnection, manager: APNsConnectionManager) {
        self.push = push
        self.connection = connection
        self.manager = manager
    }

    func handlerAdded(context: ChannelHandlerContext) {
        push.stream = context.channel
    }

    func channelActive(context: ChannelHandlerContext) {
        // The sender may have timed out while the stream waited for a slot.
        guard !push.isDone else {
            context.close(promise: nil)
            return
        }
        context.write(wrapOutboundOut(.headers(.init(headers: push.headers, endStream: push.body == nil))), promise: nil)
        if let body = push.body {
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        }
        // One flush per stream reaches the connection's FlushCoalescingHandler, which sends a turn's worth at once.
        context.flush()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if status == nil {
                status = frame.headers.first(name: ":status").flatMap { Int($0) }
                apnsID = frame.headers.first(name: "apns-id")
            }
            if frame.endStream { finish(context: context) }
        case .data(let frame):
            if case .byteBuffer(var buffer) = frame.data {
                if body == nil {
                    body = buffer
                } else if body!.readableBytes < Self.maximumBodyBytes {
                    body!.writeBuffer(&buffer)
                }
            }
            if frame.endStream { finish(context: context) }
        default:
            break
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard let status else {
            push.complete(.failure(APNsTransportError.connectionLost("APNs answered without a :status header")))
            context.close(promise: nil)
            return
        }
        push.complete(.success(APNsResponse(status: status, apnsID: apnsID, body: body)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The connection's TLS failure reaches every stream: the sender gets that real error.
        push.complete(.failure(error))
        context.close(promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        push.stream = nil
        push.complete(.failure(connection.failure ?? APNsTransportError.connectionLost("the stream closed before APNs answered")))
        manager.streamClosed(on: connection)
    }
}
