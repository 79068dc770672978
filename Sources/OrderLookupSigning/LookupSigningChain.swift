import Crypto
import Foundation
import SwiftASN1
import X509

/// A deployment's signing chain for signed transactions: root → intermediate → leaf, all P-256, shaped like Apple's
/// App Store chain so that Apple's `SignedDataVerifier`, given the root, accepts the transactions in strict mode.
///
/// Only the leaf's private key is kept: the root and intermediate keys sign once, at generation, and are dropped, so a
/// leaked store cannot mint a new intermediate under the merchant-trusted root.
public struct LookupSigningChain: Sendable {
    /// The key that signs transactions; its public half is in ``leaf``.
    public let leafKey: P256.Signing.PrivateKey
    /// The transaction-signing certificate, with ``LookupOID/receiptSigningLeaf``.
    public let leaf: Certificate
    /// The intermediate authority, with ``LookupOID/wwdrIntermediate``.
    public let intermediate: Certificate
    /// The self-signed root that merchants give to their verifier.
    public let root: Certificate

    /// Organisation name carried by every generated certificate.
    public static let organization = "OrderTrack Order Lookup"

    /// A chain from its parts, checking that the key matches the leaf and each certificate is signed by the next.
    ///
    /// - Throws: ``LookupSigningError/invalidChain(reason:)`` when the parts do not belong together.
    public init(leafKey: P256.Signing.PrivateKey, leaf: Certificate, intermediate: Certificate, root: Certificate)
        throws(LookupSigningError)
    {
        guard leaf.publicKey == Certificate.PublicKey(leafKey.publicKey) else {
            throw .invalidChain(reason: "the private key does not match the leaf certificate")
        }
        guard intermediate.publicKey.isValidSignature(leaf.signature, for: leaf),
            root.publicKey.isValidSignature(intermediate.signature, for: intermediate),
            root.publicKey.isValidSignature(root.signature, for: root)
        else {
            throw .invalidChain(reason: "the certificates are not a chain leaf → intermediate → self-signed root")
        }
        self.leafKey = leafKey
        self.leaf = leaf
        self.intermediate = intermediate
        self.root = root
    }

    /// Loads a chain stored with ``pem``.
    ///
    /// - Throws: ``LookupSigningError/invalidChain(reason:)`` for unreadable PEM or parts that do not belong together.
    public init(pem: PEMFiles) throws(LookupSigningError) {
        let parts: (P256.Signing.PrivateKey, Certificate, Certificate, Certificate)
        do {
            parts = (
                try P256.Signing.PrivateKey(pemRepresentation: pem.leafPrivateKey), try Certificate(pemEncoded: pem.leafCertificate),
                try Certificate(pemEncoded: pem.intermediateCertificate), try Certificate(pemEncoded: pem.rootCertificate)
            )
        } catch {
            throw .invalidChain(reason: "unreadable PEM (\(type(of: error)))")
        }
        try self.init(leafKey: parts.0, leaf: parts.1, intermediate: parts.2, root: parts.3)
    }

    /// The chain as PEM texts, for storage; ``PEMFiles/leafPrivateKey`` is a secret.
    public struct PEMFiles: Sendable, Equatable {
        /// The leaf's private key, PKCS#8 PEM.
        public var leafPrivateKey: String
        /// The leaf certificate.
        public var leafCertificate: String
        /// The intermediate certificate.
        public var intermediateCertificate: String
        /// The root certificate, the one merchants download.
        public var rootCertificate: String

        /// The four PEM texts of a chain.
        public init(leafPrivateKey: String, leafCertificate: String, intermediateCertificate: String, rootCertificate: String) {
            self.leafPrivateKey = leafPrivateKey
            self.leafCertificate = leafCertificate
            self.intermediateCertificate = intermediateCertificate
            self.rootCertificate = rootCertificate
        }
    }

    /// The chain as PEM texts.
    public var pem: PEMFiles {
        get throws(LookupSigningError) {
            PEMFiles(
                leafPrivateKey: leafKey.pemRepresentation, leafCertificate: try Self.pem(leaf),
                intermediateCertificate: try Self.pem(intermediate), rootCertificate: try Self.pem(root))
        }
    }

    /// The root as DER, what Apple's `SignedDataVerifier` takes as `root_certificates`.
    public var rootDER: [UInt8] {
        get throws(LookupSigningError) { try Self.der(root) }
    }

    /// Generates a new chain with fresh keys.
    ///
    /// - Parameters:
    ///   - deployment: Names the deployment in every subject, so roots of different deployments are told apart.
    ///   - validity: How long the certificates are valid from `now`, in seconds (20 years by default: Apple's verifier
    ///     checks validity at each transaction's `signedDate`, and merchants pin the root).
    ///   - now: The start of the validity; every certificate is valid from an hour before it, for clock differences.
    /// - Throws: ``LookupSigningError/invalidChain(reason:)`` when making a certificate fails.
    public static func generate(deployment: String, validity: TimeInterval = 20 * 365 * 86_400, now: Date = Date())
        throws(LookupSigningError) -> LookupSigningChain
    {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let notBefore = now.addingTimeInterval(-3_600)
        let notAfter = now.addingTimeInterval(validity)
        do {
            let rootName = try name("\(deployment) Root CA")
            let intermediateName = try name("\(deployment) Intermediate CA")
            let leafName = try name("\(deployment) Transaction Signing")
            let rootPublic = Certificate.PublicKey(rootKey.publicKey)
            let intermediatePublic = Certificate.PublicKey(intermediateKey.publicKey)
            let leafPublic = Certificate.PublicKey(leafKey.publicKey)
            let root = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: rootPublic,
                notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName, subject: rootName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: rootPublic)
                },
                issuerPrivateKey: Certificate.PrivateKey(rootKey))
            let intermediate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: intermediatePublic,
                notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName, subject: intermediateName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: intermediatePublic)
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: rootPublic).keyIdentifier)
                    marker(LookupOID.wwdrIntermediate)
                },
                issuerPrivateKey: Certificate.PrivateKey(rootKey))
            let leaf = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: leafPublic,
                notValidBefore: notBefore, notValidAfter: notAfter, issuer: intermediateName, subject: leafName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    SubjectKeyIdentifier(hash: leafPublic)
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: intermediatePublic).keyIdentifier)
                    marker(LookupOID.receiptSigningLeaf)
                },
                issuerPrivateKey: Certificate.PrivateKey(intermediateKey))
            return try LookupSigningChain(leafKey: leafKey, leaf: leaf, intermediate: intermediate, root: root)
        } catch let error as LookupSigningError {
            throw error
        } catch {
            throw .invalidChain(reason: "cannot make the certificates (\(error))")
        }
    }

    private static func name(_ commonName: String) throws -> DistinguishedName {
        try DistinguishedName {
            OrganizationName(organization)
            CommonName(commonName)
        }
    }

    /// Apple's verifier checks only that the marker is there; NULL is the smallest well-formed value.
    private static func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }

    private static func der(_ certificate: Certificate) throws(LookupSigningError) -> [UInt8] {
        do {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        } catch {
            throw .invalidChain(reason: "cannot encode a certificate (\(error))")
        }
    }

    private static func pem(_ certificate: Certificate) throws(LookupSigningError) -> String {
        PEMDocument(type: "CERTIFICATE", derBytes: try der(certificate)).pemString
    }
}
