import Crypto
import SwiftASN1
import WireFormats
import X509
import _CryptoExtras

/// A merchant's Apple Pay Payment Processing certificate with its private key: what tokens are encrypted for.
///
/// A merchant may hold several at once while it rotates certificates; tokens name theirs by ``publicKeyHash``.
public struct ApplePayPaymentIdentity: Sendable {
    // `@unchecked`: swift-crypto does not annotate `_RSA.Encryption.PrivateKey` as Sendable, although it is an
    // immutable wrapper around the same BoringSSL key as the Sendable `_RSA.Signing.PrivateKey`.
    /// The private key of a payment-processing certificate: P-256 for EC_v1, RSA for RSA_v1.
    public enum PrivateKey: @unchecked Sendable {
        /// EC_v1 identities.
        case p256(P256.KeyAgreement.PrivateKey)
        /// RSA_v1 identities (regions where regulation requires RSA).
        case rsa(_RSA.Encryption.PrivateKey)
    }

    /// The Payment Processing certificate.
    public let certificate: Certificate
    /// Its private key, which decrypts the tokens encrypted for the certificate.
    public let privateKey: PrivateKey
    /// The merchant identifier (`merchant.com.example`) from the subject's UID, or the hex hash when the certificate
    /// names none.
    public let merchantIdentifier: String
    /// SHA-256 of the merchant identifier (the KDF's Party V), from extension 1.2.840.113635.100.6.32.
    public let merchantIdentifierHash: [UInt8]
    /// SHA-256 of the certificate's DER SubjectPublicKeyInfo, as tokens carry it in `header.publicKeyHash`.
    public let publicKeyHash: [UInt8]

    /// Checks that the key belongs to the certificate and reads the merchant identifier from the certificate.
    public init(certificate: Certificate, privateKey: PrivateKey) throws(ApplePayError) {
        switch privateKey {
        case .p256(let key):
            guard let certificateKey = P256.Signing.PublicKey(certificate.publicKey),
                certificateKey.x963Representation == key.publicKey.x963Representation
            else { throw ApplePayError(.invalidIdentity, "the EC private key does not belong to the certificate") }
        case .rsa(let key):
            guard let certificateKey = _RSA.Signing.PublicKey(certificate.publicKey),
                certificateKey.pkcs1DERRepresentation == key.publicKey.pkcs1DERRepresentation
            else { throw ApplePayError(.invalidIdentity, "the RSA private key does not belong to the certificate") }
        }
        let uid = Self.userID(of: certificate)
        let hashFromExtension = try Self.merchantHashExtension(of: certificate)
        let hashFromUID = uid.map { Array(SHA256.hash(data: Array($0.utf8))) }
        if let hashFromExtension, let hashFromUID, hashFromExtension != hashFromUID {
            throw ApplePayError(.invalidIdentity, "the certificate's merchant hash extension does not match its UID '\(uid ?? "")'")
        }
        guard let hash = hashFromExtension ?? hashFromUID else {
            throw ApplePayError(
                .invalidIdentity, "the certificate names no merchant (no extension 1.2.840.113635.100.6.32, no subject UID)")
        }
        self.certificate = certificate
        self.privateKey = privateKey
        self.merchantIdentifier = uid ?? Hex.encode(hash).uppercased()
        self.merchantIdentifierHash = hash
        // `subjectPublicKeyInfoBytes` is only the key's BIT STRING; Apple hashes the whole DER SubjectPublicKeyInfo.
        var spki = DER.Serializer()
        do {
            try spki.serialize(certificate.publicKey)
        } catch {
            throw ApplePayError(.invalidIdentity, "the certificate's public key does not serialize: \(error)")
        }
        self.publicKeyHash = Array(SHA256.hash(data: spki.serializedBytes))
    }

    /// Whether the certificate is for `merchantIdentifier`: compared by its SHA-256, which every Payment Processing
    /// certificate carries, so a certificate that names its merchant only by that hash is matched too.
    public func isFor(merchantIdentifier candidate: String) -> Bool {
        Array(SHA256.hash(data: Array(candidate.utf8))) == merchantIdentifierHash
    }

    /// An identity from a PEM certificate and a PEM private key (SEC 1 or PKCS#8 EC, PKCS#1 or PKCS#8 RSA).
    public init(certificatePEM: String, privateKeyPEM: String) throws(ApplePayError) {
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
        } catch {
            throw ApplePayError(.invalidIdentity, "the certificate is not a PEM X.509 certificate: \(error)")
        }
        let key: PrivateKey
        if P256.Signing.PublicKey(certificate.publicKey) != nil {
            guard let parsed = try? P256.KeyAgreement.PrivateKey(pemRepresentation: privateKeyPEM) else {
                throw ApplePayError(.invalidIdentity, "the private key is not an unencrypted PEM P-256 key")
            }
            key = .p256(parsed)
        } else if _RSA.Signing.PublicKey(certificate.publicKey) != nil {
            guard let parsed = try? _RSA.Encryption.PrivateKey(pemRepresentation: privateKeyPEM) else {
                throw ApplePayError(.invalidIdentity, "the private key is not an unencrypted PEM RSA key of at least 2048 bits")
            }
            key = .rsa(parsed)
        } else {
            throw ApplePayError(.invalidIdentity, "the certificate's key is neither P-256 nor RSA")
        }
        try self.init(certificate: certificate, privateKey: key)
    }

    private static func userID(of certificate: Certificate) -> String? {
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == ApplePayOID.userID {
                if let text = String(attribute.value) { return text }
            }
        }
        return nil
    }

    private static func merchantHashExtension(of certificate: Certificate) throws(ApplePayError) -> [UInt8]? {
        guard let raw = certificate.extensions[oid: ApplePayOID.merchantIdentifierHash] else { return nil }
        // The value is a UTF8String of 64 hex digits.
        guard let node = try? DER.parse(raw.value), let text = try? ASN1UTF8String(derEncoded: node),
            let hash = Hex.decode(String(text)), hash.count == 32
        else {
            throw ApplePayError(.invalidIdentity, "extension 1.2.840.113635.100.6.32 is not a UTF8String of 64 hex digits")
        }
        return hash
    }
}
