import Foundation
import SwiftASN1
import X509

/// One SignerInfo of a SignedData (RFC 5652 §5.3), as carried: nothing in it is trusted until it verifies.
public struct CMSSignerInfo: Sendable {
    /// How the SignerInfo names its signer's certificate.
    public enum Identifier: Sendable, Hashable {
        /// The certificate's issuer and serial number (SignerInfo version 1).
        case issuerAndSerialNumber(issuer: DistinguishedName, serialNumber: Certificate.SerialNumber)
        /// The certificate's subjectKeyIdentifier extension (SignerInfo version 3).
        case subjectKeyIdentifier([UInt8])
    }

    /// The SignerInfo version: 1 with issuerAndSerialNumber, 3 with subjectKeyIdentifier.
    public var version: Int
    /// The signer's certificate, by name.
    public var identifier: Identifier
    /// The digest algorithm over the content (and over the signed attributes when there are some).
    public var digestAlgorithm: ASN1ObjectIdentifier
    /// The signed attributes, absent when the signature covers the content directly.
    public var signedAttributes: CMSSignedAttributes?
    /// The signature algorithm as written: a combined algorithm or only the key's (completed by `digestAlgorithm`).
    public var signatureAlgorithm: ASN1ObjectIdentifier
    /// The signature value.
    public var signature: [UInt8]

    /// Whether `certificate` is the one `identifier` names.
    public func names(_ certificate: Certificate) -> Bool {
        switch identifier {
        case .issuerAndSerialNumber(let issuer, let serialNumber):
            return certificate.issuer == issuer && certificate.serialNumber == serialNumber
        case .subjectKeyIdentifier(let keyIdentifier):
            return (try? certificate.extensions.subjectKeyIdentifier)?.keyIdentifier.elementsEqual(keyIdentifier) == true
        }
    }
}

/// The signed attributes of a SignerInfo that a verifier reads (RFC 5652 §5.3, §11).
public struct CMSSignedAttributes: Sendable {
    /// The bytes the signature covers: the attributes' encoding with the universal SET OF tag instead of `[0]`.
    public var signedBytes: [UInt8]
    /// The `contentType` attribute.
    public var contentType: ASN1ObjectIdentifier?
    /// The `messageDigest` attribute.
    public var messageDigest: [UInt8]?
    /// The `signingTime` attribute.
    public var signingTime: Date?
}
