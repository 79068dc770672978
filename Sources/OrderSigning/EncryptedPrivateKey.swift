import Crypto
import Foundation
import SwiftASN1
import WireFormats

/// Decryption of encrypted private keys: PKCS#8 `EncryptedPrivateKeyInfo` and OpenSSL's legacy
/// PEM encryption (`Proc-Type: 4,ENCRYPTED` with `DEK-Info`).
enum EncryptedPrivateKey {
    /// `EncryptedPrivateKeyInfo ::= SEQUENCE { encryptionAlgorithm AlgorithmIdentifier, encryptedData OCTET STRING }`,
    /// returning the inner `PrivateKeyInfo` DER.
    static func decryptPKCS8(_ der: [UInt8], password: String, source: String) throws(SigningError) -> [UInt8] {
        let algorithm: AlgorithmIdentifierNode
        let ciphertext: [UInt8]
        do throws(ASN1Failure) {
            let parts = try ASN1Node.parse(der, what: "EncryptedPrivateKeyInfo").children(what: "EncryptedPrivateKeyInfo")
            guard parts.count == 2 else {
                throw ASN1Failure(reason: "EncryptedPrivateKeyInfo has \(parts.count) elements, expected 2")
            }
            algorithm = try AlgorithmIdentifierNode(parts[0], what: "EncryptedPrivateKeyInfo.encryptionAlgorithm")
            ciphertext = try parts[1].octets(what: "EncryptedPrivateKeyInfo.encryptedData")
        } catch {
            throw .malformedPrivateKey(source: source, reason: error.reason)
        }
        let plaintext = try PasswordBasedEncryption.decrypt(
            ciphertext, algorithm: algorithm, password: password,
            context: .init(source: source, what: "the private key encryption"))
        // Padding can survive a wrong key by chance (about 1 in 256); the result then is not DER.
        guard (try? ASN1Node.parse(plaintext, what: "PrivateKeyInfo")) != nil else {
            throw .wrongPassword(source: source)
        }
        return plaintext
    }

    /// Legacy OpenSSL PEM encryption: key = EVP_BytesToKey(MD5, password, salt = first 8 IV bytes, 1 round).
    static func decryptLegacyPEM(_ block: PEMBlock, password: String, source: String) throws(SigningError) -> [UInt8] {
        guard let info = block.headers["DEK-Info"] else {
            throw .malformedPEM(source: source, block: block.index, reason: "encrypted '\(block.label)' has no DEK-Info header")
        }
        let parts = info.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let iv = Hex.decode(parts[1]), !iv.isEmpty else {
            throw .malformedPEM(source: source, block: block.index, reason: "DEK-Info '\(info)' is not 'CIPHER,HEXIV'")
        }
        let cipher: BlockCipher
        switch parts[0].uppercased() {
        case "AES-128-CBC": cipher = .aes(keySize: 16)
        case "AES-192-CBC": cipher = .aes(keySize: 24)
        case "AES-256-CBC": cipher = .aes(keySize: 32)
        case "DES-EDE3-CBC": cipher = .tripleDES
        default:
            throw .unsupportedAlgorithm(
                oid: "none (PEM DEK-Info)", name: parts[0], context: "the legacy PEM encryption of \(source)",
                fix: "Convert the key with 'openssl pkcs8 -topk8 -v2 aes-256-cbc -in OLD.pem -out key.pem'.")
        }
        guard iv.count == cipher.blockSize else {
            throw .malformedPEM(source: source, block: block.index, reason: "DEK-Info IV has \(iv.count) bytes, expected \(cipher.blockSize)")
        }
        let key = bytesToKey(password: Array(password.utf8), salt: Array(iv.prefix(8)), count: cipher.keySize)
        let plaintext: [UInt8]
        do {
            plaintext = try cipher.decrypt(block.der, key: key, iv: iv)
        } catch {
            throw .wrongPassword(source: source)
        }
        guard (try? ASN1Node.parse(plaintext, what: "private key")) != nil else {
            throw .wrongPassword(source: source)
        }
        return plaintext
    }

    /// OpenSSL's EVP_BytesToKey with MD5 and one iteration: D_i = MD5(D_{i-1} || password || salt).
    private static func bytesToKey(password: [UInt8], salt: [UInt8], count: Int) -> [UInt8] {
        var output: [UInt8] = []
        var previous: [UInt8] = []
        while output.count < count {
            previous = Array(Insecure.MD5.hash(data: previous + password + salt))
            output += previous
        }
        return Array(output.prefix(count))
    }
}
