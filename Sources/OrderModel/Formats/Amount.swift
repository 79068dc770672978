import Foundation

/// Money amounts as decimal text: parsed without binary floating point, emitted with the currency's minor units.
public enum Amount {
    /// `text` if it is a plain decimal (`12`, `-3.5`, `0.125`), else `nil`.
    public static func decimalText(_ text: String) -> String? {
        var bytes = Array(text.utf8)[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }) else { return nil }
        return text
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
        guard decimalText(text) != nil else { return nil }
        guard let dot = text.firstIndex(of: ".") else { return 0 }
        return text.distance(from: dot, to: text.endIndex) - 1
    }

    /// The amount written with exactly the currency's minor units (`12.5` USD → `12.50`, `100.0` JPY → `100`),
    /// or `nil` when that would drop non-zero digits.
    public static func normalized(_ text: String, currency: String) -> String? {
        guard decimalText(text) != nil else { return nil }
        let digits = ISOCodes.minorUnits(of: currency)
        let parts = text.split(separator: ".", maxSplits: 1)
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        while fraction.count > digits, fraction.last == "0" { fraction.removeLast() }
        guard fraction.count <= digits else { return nil }
        fraction += String(repeating: "0", count: digits - fraction.count)
        return fraction.isEmpty ? String(parts[0]) : "\(parts[0]).\(fraction)"
    }

    /// The exact `Decimal` value of decimal text.
    public static func decimal(_ text: String) -> Decimal? {
        decimalText(text).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
