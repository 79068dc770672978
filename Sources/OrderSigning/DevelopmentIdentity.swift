import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// Creates development signing identities: a test root CA, an intermediate standing in for Apple
/// WWDR, and a leaf shaped like Apple's Order Type ID certificate.
///
/// Wallet does not trust these; every subject says so. Use them for local development, tests and
/// benchmarks, never for packages meant for real devices.
public enum DevelopmentIdentity {
    /// A development identity held in memory.
    public struct Material: Sendable {
        /// The loaded identity (leaf + development WWDR intermediate + key).
        public let identity: SigningIdentity
        /// The self-signed development root, the trust anchor for verifying signatures.
        public let rootCertificate: Certificate
        /// The development root certificate as PEM (`root-ca.pem`).
        public let rootCAPEM: String
        /// The development WWDR intermediate as PEM (`wwdr.pem`).
        public let wwdrPEM: String
        /// The Order Type ID-shaped leaf certificate as PEM (`certificate.pem`).
        public let certificatePEM: String
        /// The leaf's RSA-2048 key as unencrypted PKCS#8 PEM (`key.pem`).
        public let privateKeyPEM: String
    }

    /// Paths written by `create(orderTypeIdentifier:teamIdentifier:in:)`.
    public struct Files: Sendable {
        /// The directory holding the files.
        public let directory: URL
        /// `root-ca.pem`: the trust anchor for verifying development signatures.
        public let rootCA: URL
        /// `wwdr.pem`: the development intermediate.
        public let wwdr: URL
        /// `certificate.pem`: the leaf certificate.
        public let certificate: URL
        /// `key.pem`: the leaf's private key, mode 0600.
        public let privateKey: URL
        /// `README.txt`: says what these files are and that Wallet does not trust them.
        public let readme: URL
    }

    /// The result of `create(orderTypeIdentifier:teamIdentifier:in:)`.
    public struct Created: Sendable {
        /// The loaded identity, ready to sign.
        public let identity: SigningIdentity
        /// The self-signed development root, the trust anchor for verifying signatures.
        public let rootCertificate: Certificate
        /// Where everything was written.
        public let files: Files
    }

    /// Organisation name carried by every development certificate.
    public static let organization = "OrderTrack Development (NOT TRUSTED BY WALLET)"

    /// Makes a development identity in memory, without touching disk.
    ///
    /// - Parameters:
    ///   - orderTypeIdentifier: Written to the leaf's subject UID and CN, as Apple does.
    ///   - teamIdentifier: The leaf's OU.
    ///   - validity: How long the leaf is valid from `now`, in seconds.
    ///   - now: The time `validity` counts from; every certificate is valid from an hour before it, for clock differences.
    /// - Throws: ``SigningError/developmentIdentityFailed(reason:)`` for an empty order type identifier, or when making
    ///   the keys or certificates fails.
    public static func make(
        orderTypeIdentifier: String, teamIdentifier: String = "DEVTEAM000",
        validity: TimeInterval = 365 * 86_400, now: Date = Date()
    ) throws(SigningError) -> Material {
        guard !orderTypeIdentifier.isEmpty else {
            throw .developmentIdentityFailed(reason: "the order type identifier is empty")
        }
        do {
            let rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let wwdrKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let leafKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let notBefore = now.addingTimeInterval(-3_600) // Tolerates small clock differences.
            let caNotAfter = now.addingTimeInterval(validity + 30 * 86_400)

            let rootName = try DistinguishedName {
                CountryName("US")
                OrganizationName(organization)
                CommonName("OrderTrack Development Root CA (NOT TRUSTED BY WALLET)")
            }
            let rootPublic = Certificate.PublicKey(rootKey.publicKey)
            let root = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: rootPublic,
                notValidBefore: notBefore, notValidAfter: caNotAfter, issuer: rootName, subject: rootName,
                signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: rootPublic)
                },
                issuerPrivateKey: Certificate.PrivateKey(rootKey))

            let wwdrName = try DistinguishedName {
                CountryName("US")
                OrganizationName(organization)
                OrganizationalUnitName("G4-DEV")
                CommonName("OrderTrack Development WWDR Intermediate (NOT TRUSTED BY WALLET)")
            }
            let wwdrPublic = Certificate.PublicKey(wwdrKey.publicKey)
            let wwdr = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: wwdrPublic,
                notValidBefore: notBefore, notValidAfter: caNotAfter, issuer: rootName, subject: wwdrName,
                signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: wwdrPublic)
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: rootPublic).keyIdentifier)
                },
                issuerPrivateKey: Certificate.PrivateKey(rootKey))

            // Attribute order as in Apple's Type ID certificates: UID, CN, OU, O, C.
            let leafName = DistinguishedName([
                RelativeDistinguishedName(.init(type: OID.userID, utf8String: orderTypeIdentifier)),
                RelativeDistinguishedName(.init(type: .RDNAttributeType.commonName, utf8String: "Order Type ID: \(orderTypeIdentifier)")),
                RelativeDistinguishedName(.init(type: .RDNAttributeType.organizationalUnitName, utf8String: teamIdentifier)),
                RelativeDistinguishedName(.init(type: .RDNAttributeType.organizationName, utf8String: organization)),
                RelativeDistinguishedName(try .init(type: .RDNAttributeType.countryName, printableString: "US")),
            ])
            let leafPublic = Certificate.PublicKey(leafKey.publicKey)
            let leaf = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: leafPublic,
                notValidBefore: notBefore, notValidAfter: now.addingTimeInterval(validity),
                issuer: wwdrName, subject: leafName,
                signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    // emailProtection lets `openssl cms -verify` accept the signer with its default S/MIME purpose.
                    try ExtendedKeyUsage([.emailProtection])
                    SubjectKeyIdentifier(hash: leafPublic)
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: wwdrPublic).keyIdentifier)
                },
                issuerPrivateKey: Certificate.PrivateKey(wwdrKey))

            let identity = try SigningIdentity(key: .rsa(leafKey), certificates: [leaf], extraIntermediates: [wwdr])
            return Material(
                identity: identity, rootCertificate: root,
                rootCAPEM: try pem(root), wwdrPEM: try pem(wwdr), certificatePEM: try pem(leaf),
                privateKeyPEM: leafKey.pkcs8PEMRepresentation)
        } catch let error as SigningError {
            throw error
        } catch {
            throw .developmentIdentityFailed(reason: "\(error)")
        }
    }

    /// Makes a development identity and writes it to `directory` (created if needed):
    /// `root-ca.pem`, `wwdr.pem`, `certificate.pem`, `key.pem` (mode 0600) and `README.txt`.
    ///
    /// Refuses to overwrite existing files, so a real identity in the same place is never clobbered.
    /// Load it again later with `SigningIdentity(directory:password:)`.
    public static func create(
        orderTypeIdentifier: String, teamIdentifier: String = "DEVTEAM000", in directory: URL,
        validity: TimeInterval = 365 * 86_400, now: Date = Date()
    ) throws(SigningError) -> Created {
        let material = try make(
            orderTypeIdentifier: orderTypeIdentifier, teamIdentifier: teamIdentifier, validity: validity, now: now)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .fileAccess(path: directory.path, reason: "cannot create the directory (\(error.localizedDescription))")
        }
        let files = Files(
            directory: directory,
            rootCA: directory.appendingPathComponent("root-ca.pem"),
            wwdr: directory.appendingPathComponent("wwdr.pem"),
            certificate: directory.appendingPathComponent("certificate.pem"),
            privateKey: directory.appendingPathComponent("key.pem"),
            readme: directory.appendingPathComponent("README.txt"))
        for url in [files.rootCA, files.wwdr, files.certificate, files.privateKey, files.readme]
        where FileManager.default.fileExists(atPath: url.path) {
            throw .fileAccess(
                path: url.path, reason: "the file already exists; choose an empty directory for a new development identity")
        }
        try SecureFile.create(material.privateKeyPEM, to: files.privateKey, mode: 0o600)
        try SecureFile.create(material.certificatePEM, to: files.certificate, mode: 0o644)
        try SecureFile.create(material.wwdrPEM, to: files.wwdr, mode: 0o644)
        try SecureFile.create(material.rootCAPEM, to: files.rootCA, mode: 0o644)
        try SecureFile.create(readme(orderTypeIdentifier: orderTypeIdentifier, identity: material.identity), to: files.readme, mode: 0o644)
        return Created(identity: material.identity, rootCertificate: material.rootCertificate, files: files)
    }

    private static func pem(_ certificate: Certificate) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return PEMBlock.encode(serializer.serializedBytes, label: "CERTIFICATE")
    }

    private static func readme(orderTypeIdentifier: String, identity: SigningIdentity) -> String {
        """
        OrderTrack DEVELOPMENT signing identity -- NOT TRUSTED BY APPLE WALLET

        Order type identifier: \(orderTypeIdentifier)
        Leaf certificate expires: \(ISO8601DateFormatter().string(from: identity.notValidAfter))

        These certificates are for local development and tests only. Wallet will reject order
        packages signed with them. For real devices, use the Order Type ID certificate issued in
        your Apple Developer account together with the Apple WWDR intermediate that issued it.

          root-ca.pem      self-signed development root CA (trust anchor for verification)
          wwdr.pem         development intermediate standing in for Apple WWDR
          certificate.pem  leaf shaped like an Order Type ID certificate
          key.pem          the leaf's private key (RSA-2048, unencrypted PKCS#8, mode 0600)

        Verify a package signature with:
          openssl cms -verify -binary -inform DER -in signature -content manifest.json \\
            -CAfile root-ca.pem -purpose any

        """
    }
}
