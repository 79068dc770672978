import Crypto
import SwiftASN1
import X509

/// The digest algorithms a SignerInfo may name, and the signature algorithm a digest and a key algorithm make.
enum CMSAlgorithms {
    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]

    /// The digest of `bytes` with the algorithm `oid` names.
    static func digest(_ oid: ASN1ObjectIdentifier, of bytes: [UInt8]) throws(CMSError) -> [UInt8] {
        switch oid {
        case sha256: return Array(SHA256.hash(data: bytes))
        case sha384: return Array(SHA384.hash(data: bytes))
        case sha512: return Array(SHA512.hash(data: bytes))
        default: throw CMSError(.unsupportedAlgorithm, "the digest algorithm \(oid) is not SHA-256, SHA-384 or SHA-512")
        }
    }

    /// The signature algorithm of a SignerInfo: signers write either the combined algorithm (sha256WithRSAEncryption,
    /// ecdsa-with-SHA256) or only the key's algorithm (rsaEncryption as `openssl cms` does, id-ecPublicKey as
    /// Security.framework does), which the digest algorithm completes.
    static func signatureAlgorithm(_ oid: ASN1ObjectIdentifier, digest: ASN1ObjectIdentifier) throws(CMSError)
        -> Certificate.SignatureAlgorithm
    {
        guard digest != sha1 else { throw CMSError(.unsupportedAlgorithm, "the digest algorithm is SHA-1; sign with SHA-256") }
        let combined: [ASN1ObjectIdentifier: (ASN1ObjectIdentifier, Certificate.SignatureAlgorithm)] = [
            [1, 2, 840, 113549, 1, 1, 11]: (sha256, .sha256WithRSAEncryption),
            [1, 2, 840, 113549, 1, 1, 12]: (sha384, .sha384WithRSAEncryption),
            [1, 2, 840, 113549, 1, 1, 13]: (sha512, .sha512WithRSAEncryption),
            [1, 2, 840, 10045, 4, 3, 2]: (sha256, .ecdsaWithSHA256),
            [1, 2, 840, 10045, 4, 3, 3]: (sha384, .ecdsaWithSHA384),
            [1, 2, 840, 10045, 4, 3, 4]: (sha512, .ecdsaWithSHA512),
        ]
        let byKey: [ASN1ObjectIdentifier: [ASN1ObjectIdentifier: Certificate.SignatureAlgorithm]] = [
            rsaEncryption: [sha256: .sha256WithRSAEncryption, sha384: .sha384WithRSAEncryption, sha512: .sha512WithRSAEncryption],
            ecPublicKey: [sha256: .ecdsaWithSHA256, sha384: .ecdsaWithSHA384, sha512: .ecdsaWithSHA512],
        ]
        if let algorithm = byKey[oid]?[digest] { return algorithm }
        if let (hash, algorithm) = combined[oid], hash == digest { return algorithm }
        throw CMSError(
            .unsupportedAlgorithm,
            "the signature algorithm \(oid) with digest \(digest) is not RSA or ECDSA with SHA-256, SHA-384 or SHA-512"
        )
    }
}
