/// Why making or checking a lookup credential failed.
public enum LookupSigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A signing chain could not be generated or loaded; `reason` says which part.
    case invalidChain(reason: String)
    /// A lookup key (the `.p8` private key or the stored public key) could not be made or read.
    case invalidKey(reason: String)
    /// Signing a transaction failed.
    case signingFailed(reason: String)

    /// A sentence for logs and command output; never contains key material.
    public var description: String {
        switch self {
        case .invalidChain(let reason): "invalid lookup signing chain: \(reason)"
        case .invalidKey(let reason): "invalid lookup key: \(reason)"
        case .signingFailed(let reason): "cannot sign the transaction: \(reason)"
        }
    }
}
