/// Why the mock APNs server could not start.
public enum MockAPNsError: Error, Sendable, CustomStringConvertible {
    /// The TLS certificate chain or key PEM could not be loaded.
    case invalidTLSMaterial(String)
    /// The provider-token public key PEM is not a P-256 public key.
    case invalidProviderKey(String)
    /// Binding the listening socket failed.
    case bindFailed(host: String, port: Int, underlying: String)
    /// `waitForPushes` timed out.
    case timedOut(expected: Int, received: Int)

    /// What went wrong and how to fix it.
    public var description: String {
        switch self {
        case .invalidTLSMaterial(let detail):
            return "mock APNs: the TLS certificate or key is unusable (\(detail)); pass a PEM certificate chain and its matching PEM private key"
        case .invalidProviderKey(let detail):
            return
                "mock APNs: the provider-token public key is not a PEM P-256 public key (\(detail)); derive it with `openssl ec -in key.p8 -pubout`"
        case .bindFailed(let host, let port, let underlying):
            return "mock APNs: cannot listen on \(host):\(port) (\(underlying)); choose another port or 0 for a free one"
        case .timedOut(let expected, let received):
            return "mock APNs: waited for \(expected) accepted pushes but only \(received) arrived"
        }
    }
}
