import WireFormats

/// A `t=<unix seconds>,v1=<hex>` signature header, as Shippo (`Shippo-Auth-Signature`) and OrderTrack's generic
/// format (`OrderTrack-Signature`) send it: the HMAC-SHA256 of `"<t>.<raw body>"`.
///
/// Several `v1=` values may appear, so a sender can sign with an old and a new secret while it rotates them. Other
/// keys (`v0=`, a future `v2=`) are skipped, so a sender that adds a scheme does not break receivers.
public struct TimestampedSignatureHeader: Sendable, Hashable {
    /// The signed timestamp, in seconds since 1970, as sent.
    public var timestamp: String
    /// The timestamp's value.
    public var seconds: Int64
    /// The `v1=` signatures, decoded from hex, in header order.
    public var signatures: [[UInt8]]

    /// The most items a header may have: a bound for hostile input far above any real rotation.
    public static let maximumItems = 16

    /// Parses `value`, the header named `header` (the name is only for the error message).
    ///
    /// - Throws: ``CarrierWebhookError/Code/malformedSignature`` when the syntax is wrong: no `t=` or two of them, a
    ///   timestamp that is not 1 to 12 digits, no `v1=`, or a `v1=` that is not 64 hex digits.
    public static func parse(_ value: String, header: String) throws(CarrierWebhookError) -> TimestampedSignatureHeader {
        // Split as bytes: splitting the String walks its grapheme clusters, which cost more than the HMAC itself.
        let items = value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map(Substring.init)
        guard items.count <= maximumItems else {
            throw CarrierWebhookError(.malformedSignature, "header \(header) has \(items.count) items; at most \(maximumItems) are read")
        }
        var timestamp: Substring?
        var signatures: [[UInt8]] = []
        for item in items {
            let trimmed = item.trimmingSpaces()
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw CarrierWebhookError(.malformedSignature, "header \(header): item \"\(trimmed.prefix(32))\" is not key=value")
            }
            let key = trimmed[..<equals]
            let text = trimmed[trimmed.index(after: equals)...]
            switch key {
            case "t":
                guard timestamp == nil else { throw CarrierWebhookError(.malformedSignature, "header \(header) has more than one t=") }
                timestamp = text
            case "v1":
                guard text.utf8.count == 64, let bytes = Hex.decode(String(text)) else {
                    throw CarrierWebhookError(.malformedSignature, "header \(header): v1= must be 64 hex digits (HMAC-SHA256)")
                }
                signatures.append(bytes)
            default:
                continue
            }
        }
        guard let timestamp else { throw CarrierWebhookError(.malformedSignature, "header \(header) has no t=<unix seconds>") }
        guard (1...12).contains(timestamp.utf8.count), timestamp.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int64(timestamp)
        else {
            throw CarrierWebhookError(.malformedSignature, "header \(header): t= must be unix seconds (1 to 12 digits)")
        }
        guard !signatures.isEmpty else { throw CarrierWebhookError(.malformedSignature, "header \(header) has no v1=<hex HMAC-SHA256>") }
        return TimestampedSignatureHeader(timestamp: String(timestamp), seconds: seconds, signatures: signatures)
    }
}

/// EasyPost's `X-Hmac-Signature: hmac-sha256-hex=<hex>` header.
///
/// See https://docs.easypost.com/docs/webhooks (webhook_secret and HMAC validation).
public enum EasyPostSignatureHeader {
    /// The scheme prefix EasyPost writes before the hex digest.
    public static let prefix = "hmac-sha256-hex="

    /// The signature bytes of `value`.
    ///
    /// - Throws: ``CarrierWebhookError/Code/malformedSignature`` when the prefix is missing or the digest is not 64 hex
    ///   digits.
    public static func parse(_ value: String) throws(CarrierWebhookError) -> [UInt8] {
        let trimmed = value.trimmingSpaces()
        guard trimmed.hasPrefix(prefix) else {
            throw CarrierWebhookError(.malformedSignature, "header X-Hmac-Signature must start with \(prefix)")
        }
        let digest = trimmed.dropFirst(prefix.count)
        guard digest.utf8.count == 64, let bytes = Hex.decode(String(digest)) else {
            throw CarrierWebhookError(.malformedSignature, "header X-Hmac-Signature: the digest must be 64 hex digits (HMAC-SHA256)")
        }
        return bytes
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (header whitespace, RFC 9110 §5.6.3).
    func trimmingSpaces() -> SubSequence {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
