import Foundation

/// Whether a merchant-chosen `authenticationToken` looks like at least 128 random bits: the secret a device presents
/// to the Wallet web service, which anyone can guess at online.
///
/// A string's true entropy cannot be measured, so this estimates the most it could have (its length times the bits of
/// the character classes it draws from) and asks for enough distinct characters to rule out repetition
/// (`aaaaaaaaaaaaaaaa`, `abababab…`). Generated tokens (22+ base64url characters) always pass.
enum AuthenticationTokenStrength {
    static let minimumBits = 128.0
    static let minimumDistinctCharacters = 8

    /// `nil` when `token` is strong enough, otherwise why not.
    static func weakness(of token: String) -> String? {
        var alphabet = 0
        let scalars = token.unicodeScalars
        if scalars.contains(where: { ("0"..."9").contains($0) }) { alphabet += 10 }
        if scalars.contains(where: { ("a"..."z").contains($0) }) { alphabet += 26 }
        if scalars.contains(where: { ("A"..."Z").contains($0) }) { alphabet += 26 }
        if scalars.contains(where: { $0.isASCII && !$0.properties.isAlphabetic && !("0"..."9").contains($0) }) { alphabet += 33 }
        if scalars.contains(where: { !$0.isASCII }) { alphabet += 100 }
        let bits = Double(scalars.count) * log2(Double(max(alphabet, 1)))
        if Set(scalars).count < minimumDistinctCharacters {
            return
                "uses fewer than \(minimumDistinctCharacters) distinct characters; omit authenticationToken to get a random one, or use 128 random bits (22 base64url characters)"
        }
        if bits < minimumBits {
            return
                "holds at most \(Int(bits)) bits (\(scalars.count) characters from an alphabet of \(alphabet)); omit authenticationToken to get a random one, or use 128 random bits (22 base64url characters)"
        }
        return nil
    }
}
