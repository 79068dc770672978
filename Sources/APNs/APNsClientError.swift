/// Why an `APNsClient` could not be created.
public enum APNsClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The endpoint is not an https URL with a host.
    case invalidEndpoint(String)
    /// The client certificate chain or its key cannot be loaded.
    case invalidCertificate(String)
    /// The extra trust roots PEM holds no usable certificate.
    case invalidTrustRoots(String)
    /// The `.p8` key is not a PEM P-256 private key, or the key id / team id is empty.
    case invalidSigningKey(String)
    /// A setting is outside its allowed range.
    case invalidSetting(String)

    /// What is wrong and what to pass instead.
    public var description: String {
        switch self {
        case .invalidEndpoint(let detail):
            return "APNs endpoint \(detail) is not usable: give an https URL such as https://api.push.apple.com"
        case .invalidCertificate(let detail):
            return "APNs client certificate: \(detail); pass the certificate chain PEM (leaf first) and its unencrypted private key PEM"
        case .invalidTrustRoots(let detail):
            return "APNs extra trust roots: \(detail); pass one or more PEM CERTIFICATE blocks"
        case .invalidSigningKey(let detail):
            return "APNs token key: \(detail); pass the .p8 file's PEM (BEGIN PRIVATE KEY), its 10-character key id and the team id"
        case .invalidSetting(let detail):
            return "APNs configuration: \(detail)"
        }
    }
}
