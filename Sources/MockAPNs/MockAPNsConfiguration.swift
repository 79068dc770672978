import Foundation

/// How the mock authenticates providers.
public enum MockAPNsAuthentication: Sendable {
    /// Accept any caller (no client certificate asked, `authorization` ignored).
    case none
    /// Require a TLS client certificate that chains to one of these PEM roots (certificate-based APNs auth).
    case clientCertificate(trustRootsPEM: String)
    /// Require `authorization: bearer <ES256 JWT>` with this key id and team id, signed by the key whose
    /// public half is given in PEM (token-based APNs auth).
    case providerToken(keyID: String, teamID: String, publicKeyPEM: String)
}

/// Settings of a mock APNs server.
public struct MockAPNsConfiguration: Sendable {
    /// Address to bind (default 127.0.0.1).
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks a free one (read it from `MockAPNsServer.port`).
    public var port: Int = 0
    /// The server's TLS certificate chain, PEM, leaf first.
    public var tlsCertificateChainPEM: String
    /// The server's TLS private key, PEM.
    public var tlsPrivateKeyPEM: String
    /// Provider authentication to demand.
    public var authentication: MockAPNsAuthentication = .none
    /// Topics a push may name; any other gets 400 `DeviceTokenNotForTopic`. `nil` allows every topic.
    public var allowedTopics: Set<String>? = nil
    /// Faults by exact device token (lower-case hex); these win over the prefix convention.
    public var faults: [String: MockAPNsFault] = [:]
    /// Device token → how many first attempts get 503 `ServiceUnavailable` before pushes succeed.
    public var failFirstAttempts: [String: Int] = [:]
    /// Delay of a `.slowResponse` answer.
    public var slowResponseDelay: Duration = .seconds(5)
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` announced to clients (APNs announces up to 1000).
    public var maxConcurrentStreams: Int = 1000
    /// Called on an event loop for every answered request; keep it short.
    public var onRequest: (@Sendable (RecordedPush) -> Void)? = nil
    /// Whether answered requests are kept for ``MockAPNsServer/requests()``; a long run that reads them through
    /// ``onRequest`` turns it off, so the mock's memory stays flat.
    public var keepsRequests = true

    /// A configuration serving TLS with the given PEM certificate chain and key.
    public init(tlsCertificateChainPEM: String, tlsPrivateKeyPEM: String) {
        self.tlsCertificateChainPEM = tlsCertificateChainPEM
        self.tlsPrivateKeyPEM = tlsPrivateKeyPEM
    }
}
