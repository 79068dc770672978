import Crypto
import Foundation
import SwiftASN1
import _CryptoExtras

/// Decrypts password-protected content: PBES2 (PBKDF2 + AES-CBC or 3DES-CBC, RFC 8018) and the
/// PKCS#12 password-based schemes (RFC 7292 appendix C: SHA-1 with 3DES or RC2).
enum PasswordBasedEncryption {
    /// The highest key-derivation iteration count accepted: what real exporters use (OpenSSL and Keychain write
    /// 2,048 to 600,000). A file is derived several times (MAC, key bag, certificates), so a higher count would let
    /// one uploaded file hold a core for seconds.
    static let maximumIterations = 600_000

    /// Refuses an iteration count above ``maximumIterations``; `context` says where it was found.
    static func checkIterations(_ iterations: Int, in context: String) throws(SigningError) {
        guard iterations <= maximumIterations else {
            throw .excessiveIterations(context: context, iterations: iterations, maximum: maximumIterations)
        }
    }

    /// Where the encrypted content came from, for error messages.
    struct Context {
        var source: String
        var what: String
    }

    static func decrypt(
        _ ciphertext: [UInt8], algorithm: AlgorithmIdentifierNode, password: String, context: Context
    ) throws(SigningError) -> [UInt8] {
        let (cipher, key, iv) = try deriveCipher(algorithm, password: password, context: context)
        guard !ciphertext.isEmpty, ciphertext.count % cipher.blockSize == 0 else {
            throw .malformedPrivateKey(
                source: context.source,
                reason: "\(context.what): \(ciphertext.count) encrypted bytes is not a whole number of "
                    + "\(cipher.blockSize)-byte blocks (is the data truncated?)")
        }
        do {
            return try cipher.decrypt(ciphertext, key: key, iv: iv)
        } catch {
            // With CBC and PKCS#7 padding, a wrong key shows up as bad padding.
            throw .wrongPassword(source: context.source)
        }
    }

    private static func deriveCipher(
        _ algorithm: AlgorithmIdentifierNode, password: String, context: Context
    ) throws(SigningError) -> (BlockCipher, [UInt8], [UInt8]) {
        switch algorithm.oid {
        case OID.pbes2:
            return try pbes2(algorithm, password: password, context: context)
        case OID.pbeWithSHAAnd3KeyTripleDESCBC, OID.pbeWithSHAAnd2KeyTripleDESCBC,
            OID.pbeWithSHAAnd128BitRC2CBC, OID.pbeWithSHAAnd40BitRC2CBC:
            return try pkcs12PBE(algorithm, password: password, context: context)
        default:
            throw unsupported(algorithm.oid, context: context)
        }
    }

    private static func unsupported(_ oid: ASN1ObjectIdentifier, context: Context) -> SigningError {
        .unsupportedAlgorithm(
            oid: "\(oid)", name: OID.name(oid), context: "\(context.what) of \(context.source)",
            fix: "Re-encrypt it with PBES2/AES, e.g. 'openssl pkcs8 -topk8 -v2 aes-256-cbc' for a key or "
                + "'openssl pkcs12 -export' (OpenSSL 3, without -legacy) for a PKCS#12 file.")
    }

    // MARK: PBES2

    private static func pbes2(
        _ algorithm: AlgorithmIdentifierNode, password: String, context: Context
    ) throws(SigningError) -> (BlockCipher, [UInt8], [UInt8]) {
        let what = "\(context.what) PBES2 parameters"
        let kdf: AlgorithmIdentifierNode
        let scheme: AlgorithmIdentifierNode
        do throws(ASN1Failure) {
            let parts = try algorithm.requiredParameters(what: what).children(what: what)
            guard parts.count == 2 else { throw ASN1Failure(reason: "\(what): expected 2 elements, found \(parts.count)") }
            kdf = try AlgorithmIdentifierNode(parts[0], what: "\(what).keyDerivationFunc")
            scheme = try AlgorithmIdentifierNode(parts[1], what: "\(what).encryptionScheme")
        } catch {
            throw .malformedPrivateKey(source: context.source, reason: error.reason)
        }
        guard kdf.oid == OID.pbkdf2 else { throw unsupported(kdf.oid, context: context) }

        let cipher: BlockCipher
        switch scheme.oid {
        case OID.aes128CBC: cipher = .aes(keySize: 16)
        case OID.aes192CBC: cipher = .aes(keySize: 24)
        case OID.aes256CBC: cipher = .aes(keySize: 32)
        case OID.desEDE3CBC: cipher = .tripleDES
        default: throw unsupported(scheme.oid, context: context)
        }
        let iv: [UInt8]
        let parameters: PBKDF2Parameters
        do {
            iv = try scheme.requiredParameters(what: "\(what).encryptionScheme")
                .octets(what: "\(what).encryptionScheme IV")
            parameters = try PBKDF2Parameters(kdf.requiredParameters(what: "\(what).PBKDF2"), what: "\(what).PBKDF2")
        } catch {
            throw .malformedPrivateKey(source: context.source, reason: error.reason)
        }
        guard iv.count == cipher.blockSize else {
            throw .malformedPrivateKey(
                source: context.source, reason: "\(what): IV is \(iv.count) bytes, expected \(cipher.blockSize)")
        }
        if let keyLength = parameters.keyLength, keyLength != cipher.keySize {
            throw .malformedPrivateKey(
                source: context.source, reason: "\(what): PBKDF2 keyLength \(keyLength) does not fit the cipher")
        }
        guard let hash = PBKDF2Parameters.hashFunction(for: parameters.prf) else {
            throw unsupported(parameters.prf, context: context)
        }
        try checkIterations(parameters.iterations, in: "\(context.what) of \(context.source)")
        let key: [UInt8]
        do {
            let derived = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: parameters.salt, using: hash,
                outputByteCount: cipher.keySize, unsafeUncheckedRounds: parameters.iterations)
            key = derived.withUnsafeBytes { Array($0) }
        } catch {
            throw .malformedPrivateKey(source: context.source, reason: "\(what): PBKDF2 failed (\(error))")
        }
        return (cipher, key, iv)
    }

    // MARK: PKCS#12 PBE

    private static func pkcs12PBE(
        _ algorithm: AlgorithmIdentifierNode, password: String, context: Context
    ) throws(SigningError) -> (BlockCipher, [UInt8], [UInt8]) {
        let what = "\(context.what) PKCS#12 PBE parameters"
        let salt: [UInt8]
        let iterations: Int
        do throws(ASN1Failure) {
            let parts = try algorithm.requiredParameters(what: what).children(what: what)
            guard parts.count == 2 else { throw ASN1Failure(reason: "\(what): expected 2 elements, found \(parts.count)") }
            salt = try parts[0].octets(what: "\(what).salt")
            iterations = try parts[1].integer(what: "\(what).iterations")
        } catch {
            throw .malformedPrivateKey(source: context.source, reason: error.reason)
        }
        guard iterations >= 1 else {
            throw .malformedPrivateKey(source: context.source, reason: "\(what): iteration count \(iterations) is not positive")
        }
        try checkIterations(iterations, in: "\(context.what) of \(context.source)")
        let cipher: BlockCipher
        let derivedKeySize: Int
        switch algorithm.oid {
        case OID.pbeWithSHAAnd3KeyTripleDESCBC: (cipher, derivedKeySize) = (.tripleDES, 24)
        case OID.pbeWithSHAAnd2KeyTripleDESCBC: (cipher, derivedKeySize) = (.tripleDES, 16)
        case OID.pbeWithSHAAnd128BitRC2CBC: (cipher, derivedKeySize) = (.rc2(keySize: 16), 16)
        default: (cipher, derivedKeySize) = (.rc2(keySize: 5), 5)
        }
        let passwordBytes = PKCS12KeyDerivation.bmpPassword(password)
        var key = PKCS12KeyDerivation.derive(
            .sha1, purpose: .encryptionKey, password: passwordBytes, salt: salt, iterations: iterations,
            count: derivedKeySize)
        if derivedKeySize == 16, cipher == .tripleDES {
            // Two-key 3DES is three-key 3DES with K3 = K1.
            key += key.prefix(8)
        }
        let iv = PKCS12KeyDerivation.derive(
            .sha1, purpose: .iv, password: passwordBytes, salt: salt, iterations: iterations, count: 8)
        return (cipher, key, iv)
    }
}

/// `PBKDF2-params ::= SEQUENCE { salt OCTET STRING, iterationCount INTEGER, keyLength INTEGER OPTIONAL, prf AlgorithmIdentifier DEFAULT hmacWithSHA1 }`
struct PBKDF2Parameters {
    var salt: [UInt8]
    var iterations: Int
    var keyLength: Int?
    var prf: ASN1ObjectIdentifier

    init(_ node: ASN1Node, what: String) throws(ASN1Failure) {
        var parts = try node.children(what: what)[...]
        guard let saltNode = parts.popFirst(), let iterationNode = parts.popFirst() else {
            throw ASN1Failure(reason: "\(what): missing salt or iteration count")
        }
        salt = try saltNode.octets(what: "\(what).salt (only the 'specified' salt form is supported)")
        iterations = try iterationNode.integer(what: "\(what).iterationCount")
        guard iterations >= 1 else {
            throw ASN1Failure(reason: "\(what): iteration count \(iterations) is not positive")
        }
        if let next = parts.first, next.identifier == .integer {
            keyLength = try next.integer(what: "\(what).keyLength")
            parts = parts.dropFirst()
        }
        prf = OID.hmacWithSHA1
        if let prfNode = parts.popFirst() {
            prf = try AlgorithmIdentifierNode(prfNode, what: "\(what).prf").oid
        }
        guard parts.isEmpty else { throw ASN1Failure(reason: "\(what): unexpected trailing elements") }
    }

    static func hashFunction(for prf: ASN1ObjectIdentifier) -> KDF.Insecure.PBKDF2.HashFunction? {
        switch prf {
        case OID.hmacWithSHA1: .insecureSHA1
        case OID.hmacWithSHA224: .insecureSHA224
        case OID.hmacWithSHA256: .sha256
        case OID.hmacWithSHA384: .sha384
        case OID.hmacWithSHA512: .sha512
        default: nil
        }
    }
}
