/// Percent-encoding of UTF-8 text (RFC 3986 section 2.1), for the places that build a URL query value or an RFC 8187
/// header value by hand rather than through Foundation, whose `addingPercentEncoding` costs far more per call.
public enum PercentEncoding {
    /// `text` with each UTF-8 byte that `keeps` refuses written as `%XX` (upper-case hex digits).
    public static func encode(_ text: String, keeping keeps: (UInt8) -> Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keeps(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), Hex.digit(byte >> 4, upperCase: true), Hex.digit(byte & 0x0F, upperCase: true)]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `byte` is an ASCII letter or digit.
    public static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): true
        default: false
        }
    }
}
