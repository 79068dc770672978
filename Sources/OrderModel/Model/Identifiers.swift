/// The identifiers merchants choose for orders and order types (and the names of asset files).
///
/// They are URL-safe, so they never need escaping in the paths devices call. `.` and `..` are not identifiers: URL
/// clients remove them as dot segments (RFC 3986 §5.2.4), so a device could never fetch such an order.
public enum Identifiers {
    /// The rule in words, for error messages.
    public static let rule = "1–255 characters of A–Z, a–z, 0–9 and ._~:@+-, other than . and .."

    /// Whether `text` follows ``rule``.
    public static func isValid(_ text: String) -> Bool {
        text != "." && text != ".." && (1...255).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "+"),
                    UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }
}
