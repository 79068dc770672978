import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request that NIO's HTTP/1.1 parser refuses (control bytes in a header, a bad request line, an oversized
/// header block) with the JSON error envelope every other error has, where Hummingbird alone answers an empty 400
/// without a `Content-Type`. The parser cannot find the next request after an error, so the connection then closes.
///
/// It sits between the HTTP/1 codec and Hummingbird's request handling. An error in a new request waits until every
/// earlier request on the connection has its response; an error inside a request's body, whose response may already
/// be under way, is passed on unchanged.
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests whose head was read and whose response has not been written to the end.
    private var unansweredRequests = 0
    /// A request's head was read and its body has not ended yet.
    private var readingRequest = false
    /// The parser error to answer once the earlier responses are written; set once per connection.
    private var pendingError: HTTPParserError?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unansweredRequests += 1
            readingRequest = true
        case .end:
            readingRequest = false
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        unansweredRequests -= 1
        context.write(data, promise: promise)
        if unansweredRequests == 0, let pendingError { answer(pendingError, context: context) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !readingRequest else {
            context.fireErrorCaught(error)
            return
        }
        // The decoder can report more than one error for the same bytes; one answer is enough.
        guard pendingError == nil else { return }
        pendingError = parserError
        if unansweredRequests == 0 { answer(parserError, context: context) }
    }

    private func answer(_ error: HTTPParserError, context: ChannelHandlerContext) {
        APIError.malformedRequest(error).writeAndClose(to: context)
    }
}

extension APIError {
    /// Writes this error as a whole response with `Connection: close` onto a channel of HTTP/1 parts, then closes the
    /// channel: the answer of handlers below Hummingbird, where no route runs.
    func writeAndClose(to context: ChannelHandlerContext) {
        let body = ByteBuffer(bytes: self.body.serialized())
        var fields: HTTPFields = [.contentType: "application/json", .connection: "close"]
        fields[.contentLength] = String(body.readableBytes)
        context.write(NIOAny(HTTPResponsePart.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
        context.write(NIOAny(HTTPResponsePart.body(body)), promise: nil)
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// The error for bytes that are not an HTTP/1.1 request, saying which part of the request is at fault.
    static func malformedRequest(_ error: HTTPParserError) -> APIError {
        let problem =
            switch error {
            case .headerOverflow:
                "the request's header block is larger than this server accepts (\(HTTPServerLimits.maximumHeaderBytes) bytes)"
            case .invalidHeaderToken, .invalidCharactersUsed, .lfExpected:
                "a header name or value holds bytes HTTP does not allow there (control characters, or a header line that is not `name: value`)"
            case .invalidMethod, .invalidConstant, .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidVersion, .invalidHost,
                .invalidPort:
                "the request line is not `METHOD /path HTTP/1.1`"
            case .invalidContentLength, .unexpectedContentLength:
                "Content-Length is not a single decimal length, or it appears together with Transfer-Encoding"
            case .invalidChunkSize:
                "a chunk size of the chunked body is not valid"
            default:
                "the bytes are not an HTTP/1.1 request (\(error))"
            }
        return .badRequest("malformed_request", "malformed HTTP request: \(problem); the connection is closed")
    }
}
