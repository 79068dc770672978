/// A payment token that failed a check, with the check in ``code`` and a reason for people in ``reason``.
///
/// Reasons never contain card data (PAN, cryptogram, EMV data): they are safe to log and to return to a caller.
public struct ApplePayError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which check failed. Extensible: compare with the static members, do not switch exhaustively.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Sendable {
            case malformedToken = "malformed_token"
            case invalidSignature = "invalid_signature"
            case untrustedChain = "untrusted_chain"
            case missingMarkerExtension = "missing_marker_extension"
            case signingTimeOutOfRange = "signing_time_out_of_range"
            case noMatchingKey = "no_matching_key"
            case decryptionFailed = "decryption_failed"
            case amountMismatch = "amount_mismatch"
            case currencyMismatch = "currency_mismatch"
            case invalidIdentity = "invalid_identity"
        }

        let backing: Backing

        /// The token, its header or the decrypted payload is not what Apple specifies (JSON, Base64, hex, sizes).
        public static let malformedToken = Code(backing: .malformedToken)
        /// The CMS signature does not verify over the token's signed bytes, or the CMS structure is unusable.
        public static let invalidSignature = Code(backing: .invalidSignature)
        /// The signer does not chain to a trusted root (Apple Root CA - G3 or a root the caller added).
        public static let untrustedChain = Code(backing: .untrustedChain)
        /// The leaf or intermediate certificate lacks Apple's marker extension.
        public static let missingMarkerExtension = Code(backing: .missingMarkerExtension)
        /// The CMS signing time is missing or too far from now.
        public static let signingTimeOutOfRange = Code(backing: .signingTimeOutOfRange)
        /// No payment-processing identity has the public key the token was encrypted for.
        public static let noMatchingKey = Code(backing: .noMatchingKey)
        /// The data does not decrypt under the merchant's key (GCM tag mismatch, or an RSA unwrap failure).
        public static let decryptionFailed = Code(backing: .decryptionFailed)
        /// The payment's amount differs from the expected amount.
        public static let amountMismatch = Code(backing: .amountMismatch)
        /// The payment's currency differs from the expected currency.
        public static let currencyMismatch = Code(backing: .currencyMismatch)
        /// A payment-processing certificate or key is unusable (no merchant identifier, key does not match).
        public static let invalidIdentity = Code(backing: .invalidIdentity)

        /// The code as a stable snake_case string, e.g. `invalid_signature`, for APIs and exit messages.
        public var description: String { backing.rawValue }
    }

    /// Which check failed.
    public var code: Code
    /// What failed, in words safe to log and to return: never card data.
    public var reason: String

    /// An error for a failed check, with its reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The code and the reason, e.g. `invalid_signature: the signature does not verify …`.
    public var description: String { "\(code): \(reason)" }
}
