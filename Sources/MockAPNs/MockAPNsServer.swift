import Foundation
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A mock APNs: HTTP/2 over TLS on loopback that checks requests like APNs, records them and injects faults.
///
/// ```swift
/// let server = try await MockAPNsServer.start(configuration)
/// // send pushes to https://127.0.0.1:\(server.port)
/// let pushes = try await server.waitForPushes(count: 3, timeout: .seconds(5))
/// try await server.shutdown()
/// ```
public final class MockAPNsServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let channel: any Channel
    private let state: MockAPNsState

    private init(port: Int, channel: any Channel, state: MockAPNsState) {
        self.port = port
        self.channel = channel
        self.state = state
    }

    /// Starts listening on `configuration.host:configuration.port` (0 = a free port).
    public static func start(_ configuration: MockAPNsConfiguration) async throws(MockAPNsError) -> MockAPNsServer {
        let sslContext = try makeSSLContext(configuration)
        let state = MockAPNsState()
        let responder = try MockAPNsResponder(configuration: configuration, state: state)
        let connectionConfiguration = connectionConfiguration(maxConcurrentStreams: configuration.maxConcurrentStreams)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connectionID = state.addConnection(channel)
                    channel.closeFuture.whenComplete { _ in state.removeConnection(connectionID) }
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLServerHandler(context: sslContext))
                    _ = try sync.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: connectionConfiguration,
                        streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(
                                MockAPNsStreamHandler(responder: responder, connectionID: connectionID))
                        }
                    }
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch {
            throw .bindFailed(host: configuration.host, port: configuration.port, underlying: "\(error)")
        }
        return MockAPNsServer(port: channel.localAddress?.port ?? configuration.port, channel: channel, state: state)
    }

    private static func connectionConfiguration(maxConcurrentStreams: Int) -> NIOHTTP2Handler.ConnectionConfiguration {
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        var settings = nioDefaultSettings.filter { $0.parameter != .maxConcurrentStreams }
        settings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams))
        connectionConfiguration.initialSettings = settings
        return connectionConfiguration
    }

    private static func makeSSLContext(_ configuration: MockAPNsConfiguration) throws(MockAPNsError) -> NIOSSLContext {
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(configuration.tlsCertificateChainPEM.utf8))
            guard !chain.isEmpty else { throw MockAPNsError.invalidTLSMaterial("no certificate in the PEM") }
            let key = try NIOSSLPrivateKey(bytes: Array(configuration.tlsPrivateKeyPEM.utf8), format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            tls.applicationProtocols = ["h2"]
            if case .clientCertificate(let rootsPEM) = configuration.authentication {
                let roots = try NIOSSLCertificate.fromPEMBytes(Array(rootsPEM.utf8))
                guard !roots.isEmpty else { throw MockAPNsError.invalidTLSMaterial("no certificate in the client trust roots PEM") }
                tls.trustRoots = .certificates(roots)
                tls.certificateVerification = .noHostnameVerification
            }
            return try NIOSSLContext(configuration: tls)
        } catch let error as MockAPNsError {
            throw error
        } catch {
            throw .invalidTLSMaterial("\(error)")
        }
    }

    /// Every answered request, accepted or not, in answer order.
    public func requests() -> [RecordedPush] { state.requests }

    /// The accepted pushes (status 200), in answer order.
    public func pushes() -> [RecordedPush] { state.requests.filter(\.accepted) }

    /// How many pushes were accepted.
    public var count: Int { pushes().count }

    /// Waits until at least `count` pushes were accepted and returns them.
    public func waitForPushes(count: Int, timeout: Duration) async throws -> [RecordedPush] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let accepted = pushes()
            if accepted.count >= count { return accepted }
            guard ContinuousClock.now < deadline else { throw MockAPNsError.timedOut(expected: count, received: accepted.count) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Answers every push with `fault` until it is set back to `nil` (bursts of 429 or 503, slow answers), whatever
    /// the token; the per-token faults apply again afterwards.
    public func setFaultForEveryToken(_ fault: MockAPNsFault?) { state.faultForEveryToken = fault }

    /// Makes every provider token seen so far stale: later requests carrying one get 403 ExpiredProviderToken.
    public func expireProviderTokens() { state.revokeSeenProviderTokens() }

    /// Sends GOAWAY (NO_ERROR) on every open connection and then closes it, as APNs does; clients must use a new
    /// connection for later pushes.
    public func goAway() async {
        for connection in state.openConnections {
            let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: nil))
            try? await connection.writeAndFlush(frame)
            try? await connection.close()
        }
    }

    /// Closes every open client connection (clients see the connection lost) but keeps listening.
    public func dropConnections() async {
        for connection in state.openConnections { try? await connection.close() }
    }

    /// Stops listening and closes every client connection.
    public func shutdown() async throws {
        try await channel.close()
        await dropConnections()
    }
}
