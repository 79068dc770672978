/// The value of an `If-Match` header (RFC 9110 §13.1.1): a request that applies only while the resource is still the
/// representation the client saw.
public enum EntityTagCondition: Sendable, Hashable {
    /// `*`: any current representation.
    case any
    /// A list of entity tags: the opaque part of each, and whether it was weak (`W/"…"`).
    case tags([EntityTag])
}

/// One entity tag of a condition.
public struct EntityTag: Sendable, Hashable {
    /// The tag between the quotes.
    public var opaque: String
    /// Whether it was sent as `W/"…"`.
    public var isWeak: Bool

    /// A tag with its opaque part and weakness.
    public init(opaque: String, isWeak: Bool) {
        self.opaque = opaque
        self.isWeak = isWeak
    }
}

extension EntityTagCondition {
    /// Longest header value looked at, and most tags in it: far above any real client, and bounded so parsing stays
    /// cheap.
    public static let maximumLength = 8 * 1024
    /// Most entity tags in one condition.
    public static let maximumTags = 64

    /// The condition of `value` (several header fields joined with `, `), or `nil` when it is not `*` or a
    /// comma-separated list of entity tags (`"v1"`, `W/"v1"`) within the bounds.
    public static func parse(_ value: String) -> EntityTagCondition? {
        let bytes = Array(value.utf8)
        guard bytes.count <= maximumLength else { return nil }
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        if end - start == 1, bytes[start] == UInt8(ascii: "*") { return .any }
        var tags: [EntityTag] = []
        var index = start
        // `#entity-tag`: elements separated by commas with optional whitespace; empty elements are allowed and ignored.
        while index < end {
            if isSpace(bytes[index]) || bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            var isWeak = false
            if bytes[index] == UInt8(ascii: "W"), index + 1 < end, bytes[index + 1] == UInt8(ascii: "/") {
                isWeak = true
                index += 2
            }
            guard index < end, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            let opaqueStart = index
            // etagc: %x21 / %x23-7E / obs-text (%x80-FF)
            while index < end, bytes[index] != UInt8(ascii: "\"") {
                let byte = bytes[index]
                guard byte == 0x21 || (0x23...0x7E).contains(byte) || byte >= 0x80 else { return nil }
                index += 1
            }
            guard index < end else { return nil }
            tags.append(EntityTag(opaque: String(decoding: bytes[opaqueStart..<index], as: UTF8.self), isWeak: isWeak))
            guard tags.count <= maximumTags else { return nil }
            index += 1
            while index < end, isSpace(bytes[index]) { index += 1 }
            guard index == end || bytes[index] == UInt8(ascii: ",") else { return nil }
        }
        return tags.isEmpty ? nil : .tags(tags)
    }

    /// Whether a resource whose current strong entity tag has the opaque part `opaque` meets the condition. `If-Match`
    /// uses the strong comparison: a weak tag never matches.
    public func isMet(byCurrent opaque: String) -> Bool {
        switch self {
        case .any: return true
        case .tags(let tags): return tags.contains { !$0.isWeak && $0.opaque == opaque }
        }
    }
}
