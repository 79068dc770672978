import Crypto

/// SHA-256 as the manifest writes it: 64 lowercase hex characters.
enum ManifestDigest {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func sha256Hex(_ bytes: [UInt8]) -> String {
        let digest = SHA256.hash(data: bytes)
        var hex = [UInt8]()
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
