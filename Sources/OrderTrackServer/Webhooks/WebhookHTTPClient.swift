import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// The webhook worker's HTTP/1.1 client: one POST per connection, to a URL a merchant chose.
///
/// Written on NIO rather than async-http-client: that client resolves and connects inside its pool, and offers no way
/// to refuse an address before connecting nor to see the one connected. Here every address a name resolves to is
/// judged by the ``OutboundAddressPolicy`` before the connection tries it, and the connected address is judged again.
/// Redirects are not followed (a 3xx is a failed delivery), at most ``maximumKeptBody`` bytes of the answer are kept,
/// and the connection and the whole exchange have their own timeouts.
struct WebhookHTTPClient: Sendable {
    let policy: any OutboundAddressPolicy
    var connectTimeout: TimeAmount = .seconds(5)
    var totalTimeout: TimeAmount = .seconds(10)
    static let maximumKeptBody = 4096
    private static let tls: NIOSSLContext? = try? NIOSSLContext(configuration: .makeClientConfiguration())

    /// What a POST got.
    enum Outcome: Sendable, Equatable {
        /// The endpoint answered with a status and (the start of) a body.
        case answered(status: Int, body: [UInt8])
        /// The destination is not allowed: nothing was sent.
        case refused(String)
        /// No answer: the connection failed or timed out.
        case failed(String)
    }

    func post(_ url: URL, headers: [(String, String)], body: [UInt8]) async -> Outcome {
        // An IPv6 literal's brackets are URL syntax, not part of the address.
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host(percentEncoded: false).map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }), !host.isEmpty
        else { return .refused("\(url.absoluteString.prefix(64)) is not an http(s) URL") }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let group = MultiThreadedEventLoopGroup.singleton
        let isLiteral = (try? SocketAddress(ipAddress: host, port: port)) != nil
        let tls = scheme == "https" ? Self.tls : nil
        if scheme == "https", tls == nil { return .failed("TLS is not available") }
        let bootstrap = ClientBootstrap(group: group).connectTimeout(connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: isLiteral ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                }
            }
        let channel: any Channel
        do {
            if isLiteral {
                let address = try SocketAddress(ipAddress: host, port: port)
                if let refusal = policy.refusal(of: address) { return .refused(refusal) }
                channel = try await bootstrap.connect(to: address).get()
            } else {
                // Made only for a name: the system resolver it wraps must be asked, or its promises leak.
                let resolver = PolicyResolver(underlying: NIORandomizedDNSResolver(loop: group.next()), policy: policy)
                do {
                    channel = try await bootstrap.resolver(resolver).connect(host: host, port: port).get()
                } catch {
                    if let refusal = resolver.refusals.first { return .refused("\(host) resolves only to refused addresses: \(refusal)") }
                    throw error
                }
            }
        } catch {
            return .failed("could not connect to \(host):\(port): \(error)")
        }
        // The address the connection reached, judged again: what matters is where the bytes go.
        guard let connected = channel.remoteAddress, policy.refusal(of: connected) == nil else {
            channel.close(promise: nil)
            return .refused(channel.remoteAddress.flatMap(policy.refusal(of:)) ?? "the connected address is unknown")
        }
        let promise = channel.eventLoop.makePromise(of: Outcome.self)
        let timeout = channel.eventLoop.scheduleTask(in: totalTimeout) {
            promise.succeed(.failed("no complete answer within \(totalTimeout.nanoseconds / 1_000_000_000) s"))
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: Self.target(of: url))
        head.headers.add(name: "Host", value: url.port.map { "\(Self.hostHeader(host)):\($0)" } ?? Self.hostHeader(host))
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")
        do {
            try await channel.pipeline.addHandler(ResponseCollector(promise: promise)).get()
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
            try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        } catch {
            promise.succeed(.failed("could not send the request: \(error)"))
        }
        let outcome = (try? await promise.futureResult.get()) ?? .failed("no answer")
        timeout.cancel()
        channel.close(promise: nil)
        return outcome
    }

    private static func target(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        let query = url.query(percentEncoded: true).map { "?" + $0 } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }

    private static func hostHeader(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}

/// Resolves with the system resolver and hands the connection only the addresses the policy allows, remembering why
/// the others were refused.
private final class PolicyResolver: Resolver, Sendable {
    let underlying: NIORandomizedDNSResolver
    let policy: any OutboundAddressPolicy
    private let refused = Mutex<[String]>([])

    init(underlying: NIORandomizedDNSResolver, policy: any OutboundAddressPolicy) {
        self.underlying = underlying
        self.policy = policy
    }

    var refusals: [String] { refused.withLock { $0 } }

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        underlying.initiateAQuery(host: host, port: port).map(allowed)
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        underlying.initiateAAAAQuery(host: host, port: port).map(allowed)
    }

    func cancelQueries() { underlying.cancelQueries() }

    private func allowed(_ addresses: [SocketAddress]) -> [SocketAddress] {
        addresses.filter { address in
            guard let refusal = policy.refusal(of: address) else { return true }
            refused.withLock { $0.append(refusal) }
            return false
        }
    }
}

/// Collects the answer: its status and the first ``WebhookHTTPClient/maximumKeptBody`` bytes, the rest read and dropped.
private final class ResponseCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    private let promise: EventLoopPromise<WebhookHTTPClient.Outcome>
    private var status: Int?
    private var body: [UInt8] = []

    init(promise: EventLoopPromise<WebhookHTTPClient.Outcome>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(let buffer):
            body += buffer.readableBytesView.prefix(WebhookHTTPClient.maximumKeptBody - body.count)
        case .end:
            promise.succeed(.answered(status: status ?? 0, body: body))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.succeed(.failed("the connection failed: \(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.succeed(.failed("the connection closed before a complete answer"))
    }
}
