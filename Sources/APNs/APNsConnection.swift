import NIOCore
import NIOHPACK
import NIOHTTP2

/// One HTTP/2 connection to APNs: writes each push as frames of a stream it numbers itself, and matches the answers'
/// frames to their pushes. Touched only on its event loop.
///
/// The streams are not child channels of a stream multiplexer: a push is a few frames and its answer one or two, and
/// a child channel (its pipeline, handler, activation and teardown) cost more than the push itself; the fan-out
/// benchmark spent about 16 % of its CPU creating them. Sits after the `NIOHTTP2Handler`, which still keeps each
/// stream's state, flow control and the peer's concurrent-stream limit.
final class APNsConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// APNs error bodies are a few dozen bytes; anything past this is not read.
    static let maximumBodyBytes = 64 * 1024
    /// The connection's receive window is topped up to this when half of it is used (RFC 9113's initial size; answers
    /// are small, so more would only let a misbehaving server send more before we read).
    static let receiveWindow = 65_535

    let channel: any Channel
    private let manager: APNsConnectionManager
    private var context: ChannelHandlerContext?
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS; 100 (what NIOHTTP2 assumes) until its SETTINGS arrive.
    var maxStreams = 100
    /// After GOAWAY no new stream may start here; the connection closes once its streams are done.
    var goingAway = false
    /// The first error the connection saw (a TLS alert, a protocol error): what its unanswered streams report.
    var failure: (any Error)?
    /// The streams opened and not yet closed, by ID.
    private var streams: [HTTP2StreamID: Stream] = [:]
    private var nextStreamID = 1
    /// The last stream ID this connection uses; past it the manager opens a new connection (tests lower it).
    private let lastStreamID: Int

    private struct Stream {
        var push: PendingPush
        var status: Int?
        var apnsID: String?
        var body: ByteBuffer?
    }

    init(channel: any Channel, manager: APNsConnectionManager, lastStreamID: HTTP2StreamID = .maxID) {
        self.channel = channel
        self.manager = manager
        self.lastStreamID = Int(lastStreamID)
    }

    /// Streams opened and not yet closed.
    var openStreams: Int { streams.count }

    /// Whether every stream ID this connection may use has been used.
    var isOutOfStreamIDs: Bool { nextStreamID > lastStreamID }

    /// Whether a new stream can start here now.
    var acceptsStreams: Bool { !goingAway && context != nil && streams.count < maxStreams && !isOutOfStreamIDs }

    /// Writes `push` as a new stream (unflushed: the manager flushes once for all it starts). Only when
    /// ``acceptsStreams``.
    func start(_ push: PendingPush) {
        guard let context else { return }
        // Client streams are odd and only go up.
        let id = HTTP2StreamID(nextStreamID)
        nextStreamID += 2
        streams[id] = Stream(push: push)
        push.stream = (self, id)
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: push.headers, endStream: push.body == nil)))), promise: nil)
        if let body = push.body {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
        }
    }

    /// Sends what ``start(_:)`` and ``reset(_:)`` wrote.
    func flush() {
        context?.flush()
    }

    /// Gives up on stream `id` (its push timed out): RST_STREAM, which frees its slot when the stream closes.
    func reset(_ id: HTTP2StreamID) {
        guard let context, streams[id] != nil else { return }
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                maxStreams = setting.value
                manager.maxStreamsChanged(on: self)
            }
        case .goAway:
            // The streams APNs did not take close with their own event (CANCEL) and are tried again; the others are answered.
            manager.goingAway(self)
        case .headers(let headers):
            guard var stream = streams[frame.streamID] else { return }
            if stream.status == nil {
                stream.status = headers.headers.first(name: ":status").flatMap { Int($0) }
                stream.apnsID = headers.headers.first(name: "apns-id")
            }
            streams[frame.streamID] = stream
            if headers.endStream { answer(stream) }
        case .data(let data):
            guard var stream = streams[frame.streamID] else { return }
            if case .byteBuffer(var buffer) = data.data {
                if stream.body == nil {
                    stream.body = buffer
                } else if stream.body!.readableBytes < Self.maximumBodyBytes {
                    stream.body!.writeBuffer(&buffer)
                }
            }
            streams[frame.streamID] = stream
            if data.endStream { answer(stream) }
        default:
            break
        }
    }

    private func answer(_ stream: Stream) {
        guard let status = stream.status else {
            stream.push.complete(.failure(APNsTransportError.connectionLost("APNs answered without a :status header")))
            return
        }
        stream.push.complete(.success(APNsResponse(status: status, apnsID: stream.apnsID, body: stream.body)))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let closed as StreamClosedEvent:
            guard let stream = streams.removeValue(forKey: closed.streamID) else { return }
            stream.push.stream = nil
            let detail =
                closed.reason.map { "the stream was reset (HTTP/2 error code \($0.networkCode)) before APNs answered" }
                ?? "the stream closed before APNs answered"
            stream.push.complete(.failure(failure ?? APNsTransportError.connectionLost(detail)))
            manager.streamClosed(on: self)
        case let window as NIOHTTP2WindowUpdatedEvent where window.streamID == .rootStream:
            // Without a stream multiplexer nothing else returns the window that answers' bodies use up.
            if let size = window.inboundWindowSize, size <= Self.receiveWindow / 2 {
                context.writeAndFlush(
                    wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.receiveWindow - size))),
                    promise: nil)
            }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let streamError = error as? NIOHTTP2Errors.StreamError, let stream = streams[streamError.streamID] {
            // A frame of this push could not be sent; the stream is reset and its close frees the slot.
            stream.push.complete(.failure(APNsTransportError.connectionLost("the request could not be sent: \(streamError.baseError)")))
            return
        }
        // The streams only see their closing; keep the reason for them. A TLS failure closes the channel by itself.
        if failure == nil { failure = error }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let unanswered = streams.values
        streams.removeAll()
        for stream in unanswered {
            stream.push.stream = nil
            stream.push.complete(.failure(failure ?? APNsTransportError.connectionLost("the connection closed before APNs answered")))
        }
        manager.connectionClosed(self)
        context.fireChannelInactive()
    }
}
