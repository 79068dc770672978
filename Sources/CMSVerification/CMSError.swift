/// Why a CMS signature could not be read or does not verify, with a sentence a person can act on.
public struct CMSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The bytes are not a readable CMS SignedData (BER or DER).
        case malformed
        /// A digest or signature algorithm this reader does not check.
        case unsupportedAlgorithm
        /// The signer info names a certificate the signature does not carry.
        case signerCertificateMissing
        /// The signed `contentType` attribute is not id-data, or it is missing.
        case contentTypeMismatch
        /// The signed `messageDigest` attribute is not the digest of the content, or it is missing.
        case digestMismatch
        /// The signature value does not verify with the signer certificate's public key.
        case signatureMismatch
    }

    /// The kind of failure.
    public var code: Code
    /// What exactly is wrong.
    public var reason: String

    /// A failure of kind `code`, explained by `reason`.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
