import Foundation

/// Money amounts as decimal text: parsed without binary floating point, emitted with the currency's minor units.
///
/// Every function here reads the UTF-8 bytes once, so even a literal as long as a whole request body costs time
/// linear in its length.
public enum Amount {
    /// Longest amount literal the schema accepts, in bytes (sign, digits and decimal point).
    ///
    /// Real sums are far shorter: ISO 4217 currencies have at most 4 minor units (CLF, UYW), and
    /// ``maximumMagnitude`` allows 16 integer digits; 32 bytes leave room for those, 4 decimals and a sign, and for the
    /// trailing zeros some serializers write. It also stays within the 38 significant digits that `Decimal` holds
    /// exactly.
    public static let maximumLength = 32

    /// Largest magnitude of an amount, 9223372036854775.807: order lookup signs prices in thousandths as signed 64-bit
    /// integers, and a larger amount would be signed as another number (audit L20). Even a billion US dollars in
    /// Iranian rials stays below it.
    public static let maximumMagnitude = Decimal(sign: .plus, exponent: -3, significand: Decimal(Int64.max))

    /// `text` if it is a plain decimal (`12`, `-3.5`, `0.125`), else `nil`.
    public static func decimalText(_ text: String) -> String? {
        isDecimal(text.utf8) ? text : nil
    }

    /// The decimal text of an amount given as a JSON number or decimal string.
    public static func literal(of value: JSONValue) -> String? {
        switch value {
        case .number(let literal): decimalText(literal)
        case .string(let text): decimalText(text)
        default: nil
        }
    }

    /// How many digits follow the decimal point.
    public static func fractionDigits(_ text: String) -> Int? {
        let bytes = text.utf8
        guard isDecimal(bytes) else { return nil }
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return 0 }
        return bytes.distance(from: dot, to: bytes.endIndex) - 1
    }

    /// The amount written with exactly the currency's minor units (`12.5` USD → `12.50`, `100.0` JPY → `100`),
    /// or `nil` when that would drop non-zero digits. The result is a valid JSON number: leading zeros of the integer
    /// part, which a decimal string may have (`"02.5"`), are dropped (`2.50`).
    public static func normalized(_ text: String, currency: String) -> String? {
        var bytes = Array(text.utf8)
        guard isDecimal(bytes) else { return nil }
        let start = bytes.first == UInt8(ascii: "-") ? 1 : 0
        var firstKept = start
        while firstKept + 1 < bytes.count, bytes[firstKept] == UInt8(ascii: "0"), isDigit(bytes[firstKept + 1]) { firstKept += 1 }
        bytes.removeSubrange(start..<firstKept)
        let digits = ISOCodes.minorUnits(of: currency)
        let dot = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
        var end = bytes.count
        while end - (dot + 1) > digits, bytes[end - 1] == UInt8(ascii: "0") { end -= 1 }
        let fraction = max(0, end - (dot + 1))
        guard fraction <= digits else { return nil }
        bytes.removeSubrange((fraction == 0 ? dot : end)...)
        if digits > 0 {
            if fraction == 0 { bytes.append(UInt8(ascii: ".")) }
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits - fraction))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The exact `Decimal` value of decimal text; `nil` for anything else, and for literals longer than
    /// ``maximumLength``, which the schema rejects and `Decimal` might not hold exactly.
    public static func decimal(_ text: String) -> Decimal? {
        guard text.utf8.count <= maximumLength, isDecimal(text.utf8) else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// Whether decimal text is larger in magnitude than ``maximumMagnitude``; `false` for anything that is not decimal
    /// text of at most ``maximumLength`` bytes, which other checks refuse.
    public static func exceedsMaximumMagnitude(_ text: String) -> Bool {
        decimal(text).map { $0.magnitude > maximumMagnitude } ?? false
    }

    /// `-? DIGIT+ ( "." DIGIT+ )?`
    private static func isDecimal(_ bytes: some Collection<UInt8>) -> Bool {
        var digitsBeforeDot = 0
        var digitsAfterDot = 0
        var sawDot = false
        for (position, byte) in bytes.enumerated() {
            if isDigit(byte) {
                if sawDot { digitsAfterDot += 1 } else { digitsBeforeDot += 1 }
            } else if byte == UInt8(ascii: "."), !sawDot, digitsBeforeDot > 0 {
                sawDot = true
            } else if byte == UInt8(ascii: "-"), position == 0 {
                continue
            } else {
                return false
            }
        }
        return digitsBeforeDot > 0 && (!sawDot || digitsAfterDot > 0)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
