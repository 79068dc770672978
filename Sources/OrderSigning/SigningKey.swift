import Crypto
import SwiftASN1
import X509
import _CryptoExtras

/// A parsed private key, kept in the form the crypto library signs with, so each signature costs
/// exactly one private-key operation and no re-parsing.
enum SigningKey: Sendable {
    case rsa(_RSA.Signing.PrivateKey)
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case p521(P521.Signing.PrivateKey)

    /// The wrapper swift-certificates' CMS code signs with.
    var certificateKey: Certificate.PrivateKey {
        switch self {
        case .rsa(let key): Certificate.PrivateKey(key)
        case .p256(let key): Certificate.PrivateKey(key)
        case .p384(let key): Certificate.PrivateKey(key)
        case .p521(let key): Certificate.PrivateKey(key)
        }
    }

    var publicKey: Certificate.PublicKey { certificateKey.publicKey }

    /// SHA-256 throughout, as every Wallet order/pass implementation does.
    var signatureAlgorithm: Certificate.SignatureAlgorithm {
        switch self {
        case .rsa: .sha256WithRSAEncryption
        case .p256, .p384, .p521: .ecdsaWithSHA256
        }
    }

    /// PKCS#8 `PrivateKeyInfo` DER (the unencrypted `PRIVATE KEY` PEM body).
    static func fromPKCS8(_ der: [UInt8], source: String) throws(SigningError) -> SigningKey {
        let algorithm: AlgorithmIdentifierNode
        do throws(ASN1Failure) {
            let parts = try ASN1Node.parse(der, what: "PrivateKeyInfo").children(what: "PrivateKeyInfo")
            guard parts.count >= 3 else {
                throw ASN1Failure(reason: "PrivateKeyInfo has \(parts.count) elements, expected at least 3")
            }
            algorithm = try AlgorithmIdentifierNode(parts[1], what: "PrivateKeyInfo.privateKeyAlgorithm")
        } catch {
            throw .malformedPrivateKey(source: source, reason: error.reason)
        }
        switch algorithm.oid {
        case OID.rsaEncryption:
            return try rsa(der, source: source)
        case OID.ecPublicKey:
            let curve = try? algorithm.parameters?.objectIdentifier(what: "curve")
            return try ecdsa(der, curve: curve, source: source)
        default:
            throw .unsupportedKey(
                source: source,
                reason: "key algorithm \(OID.name(algorithm.oid)) (OID \(algorithm.oid)); "
                    + "order signing needs an RSA key (as Apple issues) or an ECDSA P-256/P-384/P-521 key")
        }
    }

    /// PKCS#1 `RSAPrivateKey` DER (`RSA PRIVATE KEY`).
    static func rsa(_ der: [UInt8], source: String) throws(SigningError) -> SigningKey {
        do {
            let key = try _RSA.Signing.PrivateKey(unsafeDERRepresentation: der)
            guard key.keySizeInBits >= 2048 else {
                throw SigningError.unsupportedKey(
                    source: source, reason: "RSA key of \(key.keySizeInBits) bits; at least 2048 bits are required")
            }
            return .rsa(key)
        } catch let error as SigningError {
            throw error
        } catch {
            throw .malformedPrivateKey(source: source, reason: "not a valid RSA private key (\(error))")
        }
    }

    /// SEC1 `ECPrivateKey` DER (`EC PRIVATE KEY`), whose curve is in its own `[0]` parameters.
    static func sec1(_ der: [UInt8], source: String) throws(SigningError) -> SigningKey {
        var curve: ASN1ObjectIdentifier?
        do throws(ASN1Failure) {
            let parts = try ASN1Node.parse(der, what: "ECPrivateKey").children(what: "ECPrivateKey")
            let tag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
            if let parameters = parts.first(where: { $0.identifier == tag }) {
                curve = try parameters.explicitContent(tag: 0, what: "ECPrivateKey.parameters")
                    .objectIdentifier(what: "ECPrivateKey.parameters")
            }
        } catch {
            throw .malformedPrivateKey(source: source, reason: error.reason)
        }
        return try ecdsa(der, curve: curve, source: source)
    }

    private static func ecdsa(
        _ der: [UInt8], curve: ASN1ObjectIdentifier?, source: String
    ) throws(SigningError) -> SigningKey {
        do {
            switch curve {
            case OID.curveP256: return .p256(try P256.Signing.PrivateKey(derRepresentation: der))
            case OID.curveP384: return .p384(try P384.Signing.PrivateKey(derRepresentation: der))
            case OID.curveP521: return .p521(try P521.Signing.PrivateKey(derRepresentation: der))
            case .some(let other):
                throw SigningError.unsupportedKey(
                    source: source, reason: "elliptic curve OID \(other); only P-256, P-384 and P-521 are supported")
            case .none:
                throw SigningError.unsupportedKey(
                    source: source, reason: "EC key without a named curve; re-export it with 'openssl ec -param_enc named_curve'")
            }
        } catch let error as SigningError {
            throw error
        } catch {
            throw .malformedPrivateKey(source: source, reason: "not a valid EC private key (\(error))")
        }
    }
}
