/// Serializes a manifest as a compact JSON object with keys sorted by their UTF-8 bytes and `/` left unescaped.
enum ManifestWriter {
    static func json(_ digests: [(path: String, sha256Hex: String)]) -> [UInt8] {
        let sorted = digests.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        var out = [UInt8]()
        out.reserveCapacity(sorted.reduce(2) { $0 + $1.path.utf8.count + 72 })
        out.append(UInt8(ascii: "{"))
        for (index, item) in sorted.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(item.path, to: &out)
            out.append(UInt8(ascii: ":"))
            appendString(item.sha256Hex, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func appendString(_ string: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
