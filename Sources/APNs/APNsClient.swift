import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// Sends pushes to APNs over HTTP/2 with one credential.
///
/// One client holds one long-lived HTTP/2 connection (negotiated by ALPN) and runs concurrent sends as concurrent
/// streams on it, up to the server's concurrent-stream limit (further sends wait for a free stream); when APNs sends
/// GOAWAY or the connection is lost, the next send connects again.
/// Create one client per credential and call `shutdown()` when done.
public final class APNsClient: Sendable {
    /// The settings the client was created with.
    public let configuration: APNsConfiguration
    private let connections: APNsConnectionManager
    private let tokens: ProviderTokenCache?
    /// `:authority` of every request: the endpoint's host and explicit port.
    private let authority: String
    /// `:path` up to the device token.
    private let pathPrefix: String
    private let now: @Sendable () -> Date

    /// Creates the client; nothing connects until the first send.
    ///
    /// - Throws: ``APNsClientError`` when the endpoint is not https, the certificate, key, `.p8` key or trust roots
    ///   cannot be loaded, or a setting is out of range.
    public convenience init(configuration: APNsConfiguration) throws(APNsClientError) {
        try self.init(configuration: configuration, now: Date.init)
    }

    /// - Parameter lastStreamID: the last HTTP/2 stream ID a connection uses before the client opens another (tests
    ///   lower it to see the switch).
    init(configuration: APNsConfiguration, now: @escaping @Sendable () -> Date, lastStreamID: HTTP2StreamID = .maxID) throws(APNsClientError) {
        guard let scheme = configuration.endpoint.scheme?.lowercased(), scheme == "https",
            let host = configuration.endpoint.host, !host.isEmpty
        else { throw .invalidEndpoint(configuration.endpoint.absoluteString) }
        guard configuration.defaultExpiration >= 0 else { throw .invalidSetting("defaultExpiration must not be negative") }
        guard configuration.timeout > .zero else { throw .invalidSetting("timeout must be positive") }
        var tls = TLSConfiguration.makeClientConfiguration()
        switch configuration.credential {
        case .certificate(let chain, let key):
            guard !chain.isEmpty else { throw .invalidCertificate("the certificate chain is empty") }
            tls.certificateChain = chain.map { .certificate($0) }
            tls.privateKey = .privateKey(key)
            tokens = nil
        case .token(let p8PEM, let keyID, let teamID):
            guard (20 * 60...50 * 60).contains(configuration.tokenRefreshInterval) else {
                throw .invalidSetting(
                    "tokenRefreshInterval must be 20 to 50 minutes (APNs rejects tokens refreshed more often than every 20 minutes or older than 60)")
            }
            tokens = ProviderTokenCache(
                signer: try ProviderTokenSigner(p8PEM: p8PEM, keyID: keyID, teamID: teamID),
                refreshInterval: configuration.tokenRefreshInterval, now: now)
        }
        if let rootsPEM = configuration.extraTrustRootsPEM {
            let roots: [NIOSSLCertificate]
            do {
                roots = try NIOSSLCertificate.fromPEMBytes(Array(rootsPEM.utf8))
            } catch {
                throw .invalidTrustRoots("\(error)")
            }
            guard !roots.isEmpty else { throw .invalidTrustRoots("no CERTIFICATE block found") }
            tls.additionalTrustRoots = [.certificates(roots)]
        }
        tls.applicationProtocols = ["h2"]
        let sslContext: NIOSSLContext
        do {
            sslContext = try NIOSSLContext(configuration: tls)
        } catch {
            throw .invalidCertificate("cannot set up TLS with this certificate and key (\(error))")
        }
        self.configuration = configuration
        self.now = now
        let port = configuration.endpoint.port ?? 443
        self.authority = (host.contains(":") ? "[\(host)]" : host) + (configuration.endpoint.port.map { ":\($0)" } ?? "")
        var prefix = configuration.endpoint.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.pathPrefix = prefix + "/3/device/"
        self.connections = APNsConnectionManager(
            eventLoop: MultiThreadedEventLoopGroup.singleton.next(),
            connector: HTTP2Connector(host: host, port: port, sslContext: sslContext, lastStreamID: lastStreamID), timeout: configuration.timeout)
    }

    /// Sends one push. Never throws: every APNs answer and transport failure is classified in the result.
    ///
    /// The client itself tries again only in two cases: once on a new connection when the connection was lost, and
    /// once with a new provider token when APNs answers `ExpiredProviderToken`. Everything else is for the caller.
    public func send(_ push: APNsPush) async -> APNsResult {
        guard Self.isHex(push.deviceToken) else { return .badDeviceToken }
        var headers = HPACKHeaders()
        headers.reserveCapacity(11)
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":authority", value: authority)
        // Values unique to each push are not worth a slot in the connection's HPACK table.
        headers.add(name: ":path", value: pathPrefix + push.deviceToken, indexing: .nonIndexable)
        headers.add(name: "apns-topic", value: push.topic)
        headers.add(name: "apns-push-type", value: push.pushType)
        headers.add(name: "apns-priority", value: String(push.priority))
        let expiration = push.expiration ?? now().addingTimeInterval(configuration.defaultExpiration)
        headers.add(name: "apns-expiration", value: String(max(0, Int(expiration.timeIntervalSince1970))), indexing: .nonIndexable)
        let apnsID = push.apnsID.apnsIDText
        headers.add(name: "apns-id", value: apnsID, indexing: .nonIndexable)
        let body = push.payload.isEmpty ? nil : ByteBuffer(string: push.payload)
        guard let tokens else { return await execute(headers, body: body, push: push, apnsID: apnsID) }
        do {
            let token = try await tokens.token()
            headers.add(name: "authorization", value: "bearer \(token)")
            let result = await execute(headers, body: body, push: push, apnsID: apnsID)
            guard result == .configurationError(status: 403, reason: .apns(.expiredProviderToken)) else { return result }
            // APNs calls the shared token stale: replace it once and try this push again.
            await tokens.invalidate(token)
            headers.replaceOrAdd(name: "authorization", value: "bearer \(try await tokens.token())")
            return await execute(headers, body: body, push: push, apnsID: apnsID)
        } catch {
            return .configurationError(status: nil, reason: .transport(APNsTransportFailure(.providerTokenUnsigned, detail: "\(error)")))
        }
    }

    /// - Parameter apnsID: the `apns-id` header's value, which APNs answers with.
    private func execute(_ headers: HPACKHeaders, body: ByteBuffer?, push: APNsPush, apnsID: String) async -> APNsResult {
        let deadline = NIODeadline.now() + TimeAmount(configuration.timeout)
        let result = await attempt(headers, body: body, push: push, apnsID: apnsID, deadline: deadline)
        // A send racing a connection that just died fails before APNs saw it; one more try within the same deadline
        // goes over a new connection. Should APNs have seen it after all, a second background push is harmless.
        if case .retryable(nil, .transport(let failure)) = result, failure.code == .connectionLost, NIODeadline.now() < deadline {
            return await attempt(headers, body: body, push: push, apnsID: apnsID, deadline: deadline)
        }
        return result
    }

    private func attempt(_ headers: HPACKHeaders, body: ByteBuffer?, push: APNsPush, apnsID sent: String, deadline: NIODeadline) async
        -> APNsResult
    {
        switch await connections.execute(headers: headers, body: body, deadline: deadline) {
        case .success(let response):
            let answer = response.status == 200 ? APNsErrorBody() : APNsErrorBody(response.body)
            // APNs answers with the apns-id it was sent: parsed only when it is another.
            let apnsID = response.apnsID == sent ? push.apnsID : response.apnsID.flatMap(UUID.init(uuidString:)) ?? push.apnsID
            return APNsResult.classify(
                status: response.status, reason: answer.reason, timestamp: answer.timestamp, apnsID: apnsID, receivedAt: now())
        case .failure(let error):
            return Self.classify(error)
        }
    }

    /// ASCII hex only: the token goes into the request path.
    static func isHex(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Transport failures: TLS trust and certificate problems are configuration errors, the rest retryable.
    static func classify(_ error: any Error) -> APNsResult {
        func retryable(_ code: APNsTransportFailure.Code, _ detail: String) -> APNsResult {
            .retryable(status: nil, reason: .transport(APNsTransportFailure(code, detail: detail)))
        }
        func configurationError(_ code: APNsTransportFailure.Code, _ detail: String) -> APNsResult {
            .configurationError(status: nil, reason: .transport(APNsTransportFailure(code, detail: detail)))
        }
        if let error = error as? APNsTransportError {
            switch error {
            case .timedOut: return retryable(.timedOut, "\(error)")
            case .shutDown: return retryable(.clientShutDown, "\(error)")
            case .noHTTP2: return configurationError(.noHTTP2, "\(error)")
            case .connectionLost: return retryable(.connectionLost, "\(error)")
            }
        }
        if let channelError = error as? ChannelError, case .connectTimeout = channelError {
            return retryable(.timedOut, "connecting: \(error)")
        }
        if let error = error as? NIOSSLError, case .handshakeFailed = error {
            return configurationError(.tlsHandshakeFailed, "\(error): check the trust roots and the client certificate")
        }
        if let error = error as? BoringSSLError, case .sslError = error, let alert = refusedCertificateAlerts.first(where: "\(error)".contains) {
            // Under TLS 1.3 the server judges the client certificate after the handshake, so its verdict arrives as an
            // alert on the open connection rather than as a handshake failure. BoringSSL names the alert only in text.
            return configurationError(.certificateRefused, alert)
        }
        if error is NIOSSLExtraError {
            return configurationError(.tlsFailed, "\(error): check the trust roots and the client certificate")
        }
        return retryable(.connectionLost, "\(error)")
    }

    /// TLS alerts by which a server refuses the client's certificate.
    static let refusedCertificateAlerts = [
        "ALERT_BAD_CERTIFICATE", "ALERT_UNSUPPORTED_CERTIFICATE", "ALERT_CERTIFICATE_REVOKED", "ALERT_CERTIFICATE_EXPIRED",
        "ALERT_CERTIFICATE_UNKNOWN", "ALERT_UNKNOWN_CA", "ALERT_ACCESS_DENIED", "ALERT_CERTIFICATE_REQUIRED",
    ]

    /// Closes the connection. Sends after this return a retryable error.
    public func shutdown() async throws {
        await connections.shutdown()
    }
}

/// The JSON body of an APNs error answer.
struct APNsErrorBody {
    var reason: String?
    var timestamp: Int64?

    init() {}

    init(_ buffer: ByteBuffer?) {
        guard let buffer, buffer.readableBytes > 0,
            let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]
        else { return }
        reason = object["reason"] as? String
        timestamp = (object["timestamp"] as? NSNumber)?.int64Value
    }
}
