import Crypto
import Foundation
import SwiftASN1
@_spi(CMS) import X509

/// An Order Type ID certificate with its private key and the intermediate(s) to embed.
///
/// Load it once (from PEM, PKCS#12 or a directory) and reuse it: keys and certificates are parsed at
/// load time, so each `signDetached` call costs one private-key operation plus DER encoding.
public struct SigningIdentity: Sendable {
    /// The Order Type ID (leaf) certificate whose key signs packages.
    public let certificate: Certificate
    /// Intermediate certificates (Apple WWDR) embedded in every signature. Self-signed roots are left out.
    public let intermediates: [Certificate]
    /// The order type identifier the certificate was issued for, if it names one.
    public let orderTypeIdentifier: String?
    /// When the leaf certificate expires.
    public let notValidAfter: Date

    let key: SigningKey
    private let certificateKey: Certificate.PrivateKey
    /// RSA identities' signatures, made by filling in a template (nil for EC keys).
    private let rsaTemplate: RSASignatureTemplate?

    /// The leaf's private key, for TLS client authentication to APNs with the same certificate. Never log it.
    public var privateKey: Certificate.PrivateKey { certificateKey }

    /// Pairs `key` with the one certificate in `certificates` that carries its public key; the others
    /// (plus `extraIntermediates`) become intermediates.
    init(key: SigningKey, certificates: [Certificate], extraIntermediates: [Certificate] = []) throws(SigningError) {
        let publicKey = key.publicKey
        guard let leaf = certificates.first(where: { $0.publicKey == publicKey }) else {
            throw .keyCertificateMismatch(certificates: certificates.map { $0.subject.description })
        }
        var intermediates: [Certificate] = []
        for candidate in certificates + extraIntermediates
        where candidate != leaf && candidate.subject != candidate.issuer && !intermediates.contains(candidate) {
            intermediates.append(candidate)
        }
        self.certificate = leaf
        self.intermediates = intermediates
        self.orderTypeIdentifier = Self.orderTypeIdentifier(of: leaf)
        self.notValidAfter = leaf.notValidAfter
        self.key = key
        self.certificateKey = key.certificateKey
        if case .rsa(let rsaKey) = key {
            rsaTemplate = RSASignatureTemplate(key: rsaKey, certificate: leaf, intermediates: intermediates)
        } else {
            rsaTemplate = nil
        }
    }

    /// The library that makes RSA identities' signatures in this process: "OpenSSL" where the system's libcrypto
    /// loaded, otherwise "BoringSSL".
    public static var rsaSignatureLibrary: String { SystemOpenSSL.shared == nil ? "BoringSSL" : "OpenSSL" }

    /// The library that makes this identity's signatures: "OpenSSL" (the system's, for RSA keys where it is
    /// installed), otherwise "BoringSSL".
    public var signatureLibrary: String { rsaTemplate?.library ?? "BoringSSL" }

    /// A DER-encoded detached CMS `SignedData` over `content`: SHA-256, signed attributes contentType,
    /// signingTime and messageDigest, with the leaf and intermediate certificates embedded.
    public func signDetached(_ content: [UInt8], signingTime: Date = Date()) throws(SigningError) -> [UInt8] {
        if let rsaTemplate, let signature = try rsaTemplate.sign(content, signingTime: signingTime) { return signature }
        do {
            return try CMS.sign(
                content,
                signatureAlgorithm: key.signatureAlgorithm,
                additionalIntermediateCertificates: intermediates,
                certificate: certificate,
                privateKey: certificateKey,
                signingTime: signingTime,
                detached: true
            )
        } catch {
            throw .signingFailed(reason: "\(error)")
        }
    }

    /// A bare SHA-256 signature of `bytes` (PKCS #1 v1.5 for RSA, ECDSA otherwise) by the library that signs this
    /// identity's packages, without any CMS structure: the one private-key operation inside every package signature,
    /// the baseline of `ordertrack bench package`. Not a Wallet signature.
    @_spi(Benchmarks)
    public func rawSignature(_ bytes: [UInt8]) throws -> [UInt8] {
        if let rsaTemplate { return try rsaTemplate.signature(of: SHA256.hash(data: bytes)) }
        return Array(try certificateKey.sign(bytes: bytes, signatureAlgorithm: key.signatureAlgorithm).rawRepresentation)
    }

    /// Whether the certificate expires within `interval` seconds of `now` (or has already expired).
    public func expiresWithin(_ interval: TimeInterval, of now: Date = Date()) -> Bool {
        notValidAfter <= now.addingTimeInterval(interval)
    }

    /// The order type identifier a certificate was issued for: the subject's UID attribute
    /// (OID 0.9.2342.19200300.100.1.1, as Apple's Type ID certificates carry it), or failing that the
    /// part after "Order Type ID: " in the common name.
    public static func orderTypeIdentifier(of certificate: Certificate) -> String? {
        var commonName: String?
        for rdn in certificate.subject {
            for attribute in rdn {
                if attribute.type == OID.userID, let uid = String(attribute.value), !uid.isEmpty {
                    return uid
                }
                if attribute.type == .RDNAttributeType.commonName {
                    commonName = String(attribute.value)
                }
            }
        }
        let prefix = "Order Type ID: "
        guard let commonName, commonName.hasPrefix(prefix) else { return nil }
        let identifier = commonName.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        return identifier.isEmpty ? nil : identifier
    }
}
