/// Hexadecimal text, as Apple Pay writes transaction identifiers, application data and merchant identifier hashes.
public enum Hex {
    /// The bytes of an even-length hex string (either case), or `nil`.
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// `bytes` as lower-case hex digits, two per byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digit(byte >> 4))
            out.append(digit(byte & 0x0F))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The hex digit of a value below 16, lower-case unless `upperCase` (percent-encoding writes upper case).
    public static func digit(_ nibble: UInt8, upperCase: Bool = false) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : (upperCase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + nibble - 10
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
