import SwiftASN1
import X509

/// A signer whose signature verified over the content: its certificate and what it signed.
public struct CMSVerifiedSigner: Sendable {
    /// The certificate whose public key verified the signature.
    public var certificate: Certificate
    /// The signer info that verified.
    public var info: CMSSignerInfo
    /// The signature algorithm, completed from the digest algorithm when the SignerInfo named only the key's.
    public var signatureAlgorithm: Certificate.SignatureAlgorithm
}

extension CMSSignedData {
    /// Verifies `info`'s signature over the detached `content` (RFC 5652 §5.4, §5.6).
    ///
    /// With signed attributes, `contentType` must be id-data and `messageDigest` the digest of `content`, and the
    /// signature covers the attributes; without them it covers `content` itself. Only the signature is checked here:
    /// the certificate's chain, validity and purpose are the caller's.
    /// - Throws: ``CMSError`` naming the first check that fails.
    public func verify(_ info: CMSSignerInfo, over content: [UInt8]) throws(CMSError) -> CMSVerifiedSigner {
        guard let certificate = certificate(of: info) else {
            throw CMSError(.signerCertificateMissing, "the signature does not carry the certificate its signer info names (\(info.identifier))")
        }
        let algorithm = try CMSAlgorithms.signatureAlgorithm(info.signatureAlgorithm, digest: info.digestAlgorithm)
        let signedBytes: [UInt8]
        if let attributes = info.signedAttributes {
            guard let contentType = attributes.contentType else {
                throw CMSError(.contentTypeMismatch, "the signed attributes lack contentType")
            }
            guard contentType == Self.dataOID else {
                throw CMSError(.contentTypeMismatch, "the signed contentType is \(contentType), not id-data (1.2.840.113549.1.7.1)")
            }
            guard let messageDigest = attributes.messageDigest else {
                throw CMSError(.digestMismatch, "the signed attributes lack messageDigest")
            }
            guard try CMSAlgorithms.digest(info.digestAlgorithm, of: content) == messageDigest else {
                throw CMSError(.digestMismatch, "the signed messageDigest is not the digest of the content: the content changed after signing")
            }
            signedBytes = attributes.signedBytes
        } else {
            // The algorithm check above already refused a digest algorithm that is not SHA-2.
            signedBytes = content
        }
        guard certificate.publicKey.isValidSignature(info.signature, for: signedBytes, signatureAlgorithm: algorithm) else {
            throw CMSError(
                .signatureMismatch,
                "the signature value does not verify with the public key of '\(certificate.subject)' (\(algorithm))"
            )
        }
        return CMSVerifiedSigner(certificate: certificate, info: info, signatureAlgorithm: algorithm)
    }
}
