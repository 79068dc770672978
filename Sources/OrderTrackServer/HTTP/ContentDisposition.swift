import WireFormats

/// `Content-Disposition` values as RFC 6266 writes them: an ASCII `filename` for every client, and `filename*` with the
/// name in UTF-8 (RFC 8187) for those that read it.
enum ContentDisposition {
    /// `disposition; filename="ascii.order"; filename*=UTF-8''percent-encoded.order` for a file named `name` plus
    /// `fileExtension`. Characters outside letters, digits, `-`, `_` and `.` are dropped first (no quotes, separators,
    /// controls or bidirectional overrides reach the header); the ASCII fallback also replaces non-ASCII letters with `_`.
    static func value(_ disposition: String, name: String, fileExtension: String, fallback: String) -> String {
        let kept = name.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }
        let unicodeName = kept.isEmpty ? fallback : String(String.UnicodeScalarView(kept))
        let asciiName = String(String.UnicodeScalarView(unicodeName.unicodeScalars.map { $0.isASCII ? $0 : "_" }))
        var value = "\(disposition); filename=\"\(asciiName).\(fileExtension)\""
        if asciiName != unicodeName {
            value += "; filename*=UTF-8''" + percentEncoded(unicodeName + "." + fileExtension)
        }
        return value
    }

    /// RFC 8187's `value-chars`: attr-char as is, every other UTF-8 byte as `%XX`.
    private static func percentEncoded(_ text: String) -> String {
        let attributeCharacters = Set("!#$&+-.^_`|~".utf8)
        return PercentEncoding.encode(text) { PercentEncoding.isASCIIAlphanumeric($0) || attributeCharacters.contains($0) }
    }
}
