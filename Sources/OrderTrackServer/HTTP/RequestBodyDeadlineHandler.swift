import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Gives every request a deadline for its body: a client that sends a request's headers and then stalls (slowloris)
/// gets 408 with the JSON error envelope, or, when its response has already begun, a closed connection. The idle
/// timeout does not cover this case, because a request is under way.
final class RequestBodyDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Whether the response to the request whose body is awaited has begun.
    private var responding = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            responding = false
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: timeout) {
                let (handler, context) = loopBound.value
                handler.expire(context: context)
            }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head = unwrapOutboundIn(data) { responding = true }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    private func expire(context: ChannelHandlerContext) {
        deadline = nil
        guard !responding else {
            context.close(promise: nil)
            return
        }
        responding = true
        APIError.bodyTimedOut(after: timeout).writeAndClose(to: context)
    }
}

extension APIError {
    static func bodyTimedOut(after timeout: TimeAmount) -> APIError {
        APIError(
            status: .requestTimeout, kind: .invalidRequest, code: "body_timeout",
            message: "the request body did not arrive within \(timeout.nanoseconds / 1_000_000_000) seconds; the connection is closed")
    }
}
