/// `application/x-www-form-urlencoded` bodies (WHATWG URL §5.1), as payment providers send notifications.
public enum FormURLEncoded {
    /// Most fields read from one body; the notify form has two.
    public static let maximumFields = 64

    /// The name–value pairs of `body` in order, with `+` read as a space and `%XX` decoded. A malformed escape is kept
    /// as sent and decoded bytes that are not UTF-8 become U+FFFD (the name or value then simply matches nothing).
    /// Fields past ``maximumFields`` are ignored, so the work is linear in the body and bounded in the field count.
    public static func parse(_ body: some Collection<UInt8>) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard fields.count < maximumFields else { break }
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            fields.append((decode(parts[0]), parts.count > 1 ? decode(parts[1]) : ""))
        }
        return fields
    }

    /// The value of the first field named `name`.
    public static func value(_ name: String, in fields: [(name: String, value: String)]) -> String? {
        fields.first { $0.name == name }?.value
    }

    private static func decode(_ bytes: some Collection<UInt8>) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let high = hexValue(bytes[first]), let low = hexValue(bytes[second]) {
                        decoded.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
            }
            decoded.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = bytes.index(after: index)
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
