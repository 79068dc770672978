import Foundation

/// Unpadded base64url (RFC 4648 §5), the URL- and header-safe alphabet of JWTs, tokens and cursors.
public enum Base64URL {
    /// `bytes` in the base64url alphabet (`-` and `_` for `+` and `/`), without `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// The bytes of unpadded base64url `text`, or `nil` if it has a character outside the base64url alphabet
    /// (including `+`, `/` and `=`) or a length no encoding produces.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var base64 = ""
        base64.reserveCapacity(text.utf8.count + 3)
        for character in text.unicodeScalars {
            switch character {
            case "A"..."Z", "a"..."z", "0"..."9": base64.unicodeScalars.append(character)
            case "-": base64 += "+"
            case "_": base64 += "/"
            default: return nil
            }
        }
        guard base64.utf8.count % 4 != 1 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
