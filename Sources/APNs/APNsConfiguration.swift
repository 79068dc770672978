import Foundation
import NIOSSL
import X509

/// How the provider authenticates to APNs.
public enum APNsCredential: Sendable, Hashable {
    /// TLS client-certificate auth, e.g. with the Order Type ID certificate (what Wallet order pushes use):
    /// the chain holds the leaf first, then any intermediates; `key` is the leaf's private key.
    case certificate(chain: [NIOSSLCertificate], key: NIOSSLPrivateKey)
    /// Token auth: an ES256 JWT signed with the `.p8` key (`-----BEGIN PRIVATE KEY-----` PEM) from the developer account.
    case token(p8PEM: String, keyID: String, teamID: String)

    /// Certificate auth from swift-certificates values, handed over as DER.
    public static func certificate(chain: [Certificate], privateKey: Certificate.PrivateKey) throws(APNsClientError) -> APNsCredential {
        do {
            let certificates = try chain.map { try NIOSSLCertificate(bytes: try $0.serializeAsPEM().derBytes, format: .der) }
            return .certificate(chain: certificates, key: try NIOSSLPrivateKey(bytes: try privateKey.serializeAsPEM().derBytes, format: .der))
        } catch {
            throw .invalidCertificate("cannot convert the certificate or key: \(error)")
        }
    }

    /// Certificate auth from PEM text: the chain (leaf first) and the leaf's unencrypted private key.
    public static func certificate(chainPEM: String, privateKeyPEM: String) throws(APNsClientError) -> APNsCredential {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8))
            key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        } catch {
            throw .invalidCertificate("cannot load the certificate chain or key (\(error))")
        }
        guard !chain.isEmpty else { throw .invalidCertificate("the certificate PEM holds no CERTIFICATE block") }
        return .certificate(chain: chain, key: key)
    }
}

/// Settings of one `APNsClient`: one credential, one endpoint, one long-lived HTTP/2 connection.
public struct APNsConfiguration: Sendable {
    /// Apple's production gateway (Wallet uses production APNs).
    public static let productionEndpoint = URL(string: "https://api.push.apple.com")!
    /// Apple's development gateway.
    public static let sandboxEndpoint = URL(string: "https://api.sandbox.push.apple.com")!

    /// Base URL; requests go to `<endpoint>/3/device/<token>`.
    public var endpoint: URL
    /// Provider authentication.
    public var credential: APNsCredential
    /// Extra trusted root certificates (PEM), added to the system roots, e.g. a local mock's CA.
    public var extraTrustRootsPEM: String?
    /// `apns-expiration` of pushes that do not set one: now + this many seconds (default 24 h).
    public var defaultExpiration: TimeInterval
    /// Longest wait for one push's answer; a slower answer counts as retryable.
    public var timeout: Duration
    /// Age at which the provider token is replaced; APNs wants 20 to 60 minutes, we allow 20 to 50.
    public var tokenRefreshInterval: TimeInterval

    /// Creates the settings for one credential; every value but the credential has a production default.
    ///
    /// - Parameters:
    ///   - endpoint: Base URL of the gateway, production by default; a local mock's URL in tests.
    ///   - credential: How the client authenticates: certificate or provider token.
    ///   - extraTrustRootsPEM: Roots to trust besides the system's, such as a local mock's CA.
    ///   - defaultExpiration: Seconds from now to a push's `apns-expiration` when it sets none (24 h).
    ///   - timeout: Longest wait for one push's answer (30 s).
    ///   - tokenRefreshInterval: Seconds after which a provider token is replaced (40 min); ``APNsClient`` accepts 20 to
    ///     50 minutes.
    public init(
        endpoint: URL = APNsConfiguration.productionEndpoint, credential: APNsCredential, extraTrustRootsPEM: String? = nil,
        defaultExpiration: TimeInterval = 86_400, timeout: Duration = .seconds(30), tokenRefreshInterval: TimeInterval = 40 * 60
    ) {
        self.endpoint = endpoint
        self.credential = credential
        self.extraTrustRootsPEM = extraTrustRootsPEM
        self.defaultExpiration = defaultExpiration
        self.timeout = timeout
        self.tokenRefreshInterval = tokenRefreshInterval
    }
}
