import Crypto

/// The PKCS#12 password-based key derivation function (RFC 7292 appendix B.2), used for the
/// PKCS#12 MAC key and for the legacy PKCS#12 encryption schemes.
enum PKCS12KeyDerivation {
    enum Purpose: UInt8 {
        case encryptionKey = 1
        case iv = 2
        case macKey = 3
    }

    enum Hash {
        case sha1, sha256, sha384, sha512

        /// Output length u and block length v, in bytes.
        var sizes: (output: Int, block: Int) {
            switch self {
            case .sha1: (20, 64)
            case .sha256: (32, 64)
            case .sha384: (48, 128)
            case .sha512: (64, 128)
            }
        }

        func digest(_ bytes: [UInt8]) -> [UInt8] {
            switch self {
            case .sha1: Array(Insecure.SHA1.hash(data: bytes))
            case .sha256: Array(SHA256.hash(data: bytes))
            case .sha384: Array(SHA384.hash(data: bytes))
            case .sha512: Array(SHA512.hash(data: bytes))
            }
        }
    }

    /// The password as PKCS#12 wants it: big-endian UTF-16 (BMPString) with a two-byte zero terminator.
    static func bmpPassword(_ password: String) -> [UInt8] {
        password.utf16.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] } + [0, 0]
    }

    static func derive(
        _ hash: Hash, purpose: Purpose, password: [UInt8], salt: [UInt8], iterations: Int, count: Int
    ) -> [UInt8] {
        let v = hash.sizes.block
        let diversifier = [UInt8](repeating: purpose.rawValue, count: v)
        var input = repeated(salt, toMultipleOf: v) + repeated(password, toMultipleOf: v)
        var output: [UInt8] = []
        while output.count < count {
            var block = hash.digest(diversifier + input)
            for _ in 1..<max(iterations, 1) {
                block = hash.digest(block)
            }
            output += block
            guard output.count < count else { break }
            // I_j = (I_j + B + 1) mod 2^(8v), B being the block repeated to v bytes.
            let b = repeated(block, toLength: v)
            for start in stride(from: 0, to: input.count, by: v) {
                var carry: UInt16 = 1
                for offset in stride(from: v - 1, through: 0, by: -1) {
                    let sum = UInt16(input[start + offset]) + UInt16(b[offset]) + carry
                    input[start + offset] = UInt8(truncatingIfNeeded: sum)
                    carry = sum >> 8
                }
            }
        }
        return Array(output.prefix(count))
    }

    private static func repeated(_ bytes: [UInt8], toMultipleOf v: Int) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        return repeated(bytes, toLength: v * ((bytes.count + v - 1) / v))
    }

    private static func repeated(_ bytes: [UInt8], toLength length: Int) -> [UInt8] {
        (0..<length).map { bytes[$0 % bytes.count] }
    }
}
