import Crypto
import _CryptoExtras

/// The CBC-mode ciphers found in encrypted keys and PKCS#12 files, all with PKCS#7 padding.
enum BlockCipher: Equatable {
    case aes(keySize: Int)
    case tripleDES
    /// RC2 with the given key length in bytes; the effective key bits equal the key length in bits,
    /// as the PKCS#12 RC2 schemes use it.
    case rc2(keySize: Int)

    var keySize: Int {
        switch self {
        case .aes(let size), .rc2(let size): size
        case .tripleDES: 24
        }
    }

    var blockSize: Int {
        switch self {
        case .aes: 16
        case .tripleDES, .rc2: 8
        }
    }

    struct PaddingError: Error {}

    /// CBC decryption followed by PKCS#7 padding removal. Bad padding (the usual sign of a wrong key) throws.
    func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        switch self {
        case .aes:
            return Array(try AES._CBC.decrypt(ciphertext, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv)))
        case .tripleDES:
            let cipher = TripleDES(key: key)
            return try Self.cbcDecrypt(ciphertext, iv: iv) { cipher.decryptBlock($0) }
        case .rc2(let size):
            let cipher = RC2(key: key, effectiveKeyBits: size * 8)
            return try Self.cbcDecrypt(ciphertext, iv: iv) { cipher.decryptBlock($0) }
        }
    }

    /// CBC over 8-byte blocks for the ciphers swift-crypto does not provide.
    private static func cbcDecrypt(
        _ ciphertext: [UInt8], iv: [UInt8], block: ([UInt8]) -> [UInt8]
    ) throws -> [UInt8] {
        guard !ciphertext.isEmpty, ciphertext.count % 8 == 0, iv.count == 8 else { throw PaddingError() }
        var output: [UInt8] = []
        output.reserveCapacity(ciphertext.count)
        var previous = iv
        for start in stride(from: 0, to: ciphertext.count, by: 8) {
            let chunk = Array(ciphertext[start..<start + 8])
            let plain = block(chunk)
            for index in 0..<8 {
                output.append(plain[index] ^ previous[index])
            }
            previous = chunk
        }
        guard let pad = output.last, (1...8).contains(pad), output.suffix(Int(pad)).allSatisfy({ $0 == pad }) else {
            throw PaddingError()
        }
        return Array(output.dropLast(Int(pad)))
    }
}
