import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves one HTTP/2 stream: collects the request, asks the responder, answers (or drops the connection).
final class MockAPNsStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let responder: MockAPNsResponder
    private let connectionID: Int
    private var request = MockRequest(headers: [], body: [])
    private var finished = false

    init(responder: MockAPNsResponder, connectionID: Int) {
        self.responder = responder
        self.connectionID = connectionID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            for (name, value, _) in frame.headers {
                switch name {
                case ":method": request.method = value
                case ":path": request.path = value
                case let pseudo where pseudo.hasPrefix(":"): break
                default: request.headers.append((name.lowercased(), value))
                }
            }
            if frame.endStream { finish(context: context) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data {
                // Keep one byte past the limit: enough to tell PayloadTooLarge without buffering a flood.
                let room = APNsRequestValidator.maximumPayloadBytes + 1 - request.body.count
                if room > 0 { request.body += buffer.readableBytesView.prefix(room) }
            }
            if frame.endStream { finish(context: context) }
        default:
            break
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        let answer = responder.answer(request, now: Date())
        let apnsID = request.value("apns-id").flatMap { UUID(uuidString: $0) != nil ? $0 : nil } ?? UUID().uuidString
        switch answer.action {
        case .respond:
            respond(answer, apnsID: apnsID, context: context)
        case .respondAfter(let delay):
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                self.respond(answer, apnsID: apnsID, context: context)
            }
        case .dropConnection:
            record(status: 0, reason: "ConnectionDropped", apnsID: apnsID)
            (context.channel.parent ?? context.channel).close(promise: nil)
        case .resetStream:
            record(status: 0, reason: "StreamReset", apnsID: apnsID)
            context.writeAndFlush(wrapOutboundOut(.rstStream(.internalError)), promise: nil)
        }
    }

    private func respond(_ answer: MockAnswer, apnsID: String, context: ChannelHandlerContext) {
        record(status: answer.status, reason: answer.reason, apnsID: apnsID)
        let body = answer.body
        var headers = HPACKHeaders([(":status", String(answer.status)), ("apns-id", apnsID)])
        if !body.isEmpty { headers.add(name: "content-type", value: "application/json; charset=utf-8") }
        context.write(wrapOutboundOut(.headers(.init(headers: headers, endStream: body.isEmpty))), promise: nil)
        if !body.isEmpty {
            let buffer = context.channel.allocator.buffer(string: body)
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(buffer), endStream: true))), promise: nil)
        }
        context.flush()
    }

    private func record(status: Int, reason: String?, apnsID: String) {
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name] = value }
        let push = RecordedPush(
            deviceToken: request.deviceToken ?? "", topic: request.value("apns-topic") ?? "", headers: headers,
            body: String(decoding: request.body, as: UTF8.self), receivedAt: Date(), status: status, reason: reason,
            apnsID: apnsID, connectionID: connectionID)
        if responder.configuration.keepsRequests { responder.state.record(push) }
        responder.configuration.onRequest?(push)
    }
}
