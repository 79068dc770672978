import Foundation

/// Syntax checks for URIs and e-mail addresses.
public enum TextFormat {
    /// Whether `text` is an absolute URI per RFC 3986: a scheme, a colon, then only characters a URI may hold
    /// (unreserved, reserved or well-formed `%` escapes), and one Foundation's `URL` accepts too (a numeric port, a
    /// well-formed host), because the typed model and Wallet read it as a URL.
    public static func isAbsoluteURI(_ text: String) -> Bool {
        hasURISyntax(text) && URL(string: text) != nil
    }

    private static func hasURISyntax(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isAlpha(bytes[0]) else { return false }
        for byte in bytes[1..<colon]
        where
            !(isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "."))
        {
            return false
        }
        let rest = bytes[(colon + 1)...]
        guard !rest.isEmpty else { return false }
        var position = rest.startIndex
        while position < rest.endIndex {
            let byte = rest[position]
            if byte == UInt8(ascii: "%") {
                guard position + 2 < rest.endIndex, isHex(rest[position + 1]), isHex(rest[position + 2]) else { return false }
                position += 3
                continue
            }
            guard isAlpha(byte) || isDigit(byte) || allowedPunctuation.contains(byte) else { return false }
            position += 1
        }
        if scheme(of: text).map({ $0 == "http" || $0 == "https" }) == true {
            return rest.starts(with: Array("//".utf8)) && rest.count > 2 && rest[rest.startIndex + 2] != UInt8(ascii: "/")
        }
        return true
    }

    /// The lowercased scheme of a URI, if it has one.
    public static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return text[..<colon].lowercased()
    }

    /// A pragmatic e-mail check: one `@`, a non-empty local part, a dotted domain, no spaces.
    public static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(where: \.isWhitespace) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }

    private static let allowedPunctuation = Set(Array("-._~:/?#[]@!$&'()*+,;=".utf8))
    private static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
    }
}
