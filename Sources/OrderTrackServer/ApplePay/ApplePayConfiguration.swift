import Foundation
import X509

/// How the server checks Apple Pay tokens and reaches Apple's payment gateway.
public struct ApplePayConfiguration: Sendable {
    /// Roots trusted next to the pinned Apple Root CA - G3 (`--apple-pay-root`): tests and certification only.
    public var additionalTrustRoots: [Certificate] = []
    /// How far a token's signing time may be from the server's clock (`--apple-pay-token-max-age`, Apple: 5 minutes).
    public var tokenMaxAge: TimeInterval = 300
    /// How long merchant validation waits for Apple's gateway.
    public var gatewayTimeout: Duration = .seconds(10)
    /// Tests only: where sessions are sent after their URL passed the allow-list (`--apple-pay-gateway-test-url`).
    public var testGateway: TestGateway?

    /// A stand-in for Apple's gateway: requests keep their validated path but go to this origin, trusting its root.
    public struct TestGateway: Sendable {
        /// `https://host:port` of the stand-in.
        public var origin: URL
        /// The root (PEM) the stand-in's server certificate chains to.
        public var trustRootPEM: String

        /// A stand-in at `origin` whose server certificate chains to `trustRootPEM`.
        public init(origin: URL, trustRootPEM: String) {
            self.origin = origin
            self.trustRootPEM = trustRootPEM
        }
    }

    /// The defaults: Apple's root only, 5 minutes, 10-second gateway timeout, Apple's gateway.
    public init() {}
}
