/// Why an `order.strings` file could not be read, and where.
public struct StringsFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the problem.
    public var line: Int
    /// What is wrong, as a sentence.
    public var reason: String

    /// `line N: reason`.
    public var description: String { "line \(line): \(reason)" }
}

/// An Apple `.strings` file: `"key" = "value";` pairs with `/* */` and `//` comments, in UTF-8 or UTF-16 (with BOM).
public enum StringsFile {
    /// The key–value pairs of a `.strings` file.
    ///
    /// Escapes `\n`, `\t`, `\r` and `\Uxxxx` are decoded; unquoted keys and values of letters, digits, `_`, `.`
    /// and `-` are accepted too.
    ///
    /// - Throws: ``StringsFileError`` for bad encoding, bad syntax or a duplicate key, with its line.
    public static func parse(_ bytes: [UInt8]) throws(StringsFileError) -> [String: String] {
        var parser = StringsParser(scalars: try decode(bytes))
        return try parser.parse()
    }

    private static func decode(_ bytes: [UInt8]) throws(StringsFileError) -> [Unicode.Scalar] {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let littleEndian = bytes[0] == 0xFF
            guard bytes.count % 2 == 0 else { throw StringsFileError(line: 1, reason: "UTF-16 file has an odd number of bytes") }
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2 - 1)
            var position = 2
            while position + 1 < bytes.count {
                let pair = (UInt16(bytes[position]), UInt16(bytes[position + 1]))
                units.append(littleEndian ? pair.0 | pair.1 << 8 : pair.0 << 8 | pair.1)
                position += 2
            }
            var scalars: [Unicode.Scalar] = []
            var decoder = UTF16()
            var iterator = units.makeIterator()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): scalars.append(scalar)
                case .emptyInput: return scalars
                case .error: throw StringsFileError(line: 1, reason: "invalid UTF-16 (unpaired surrogate)")
                }
            }
        }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        guard let text = String(validating: body, as: UTF8.self) else {
            throw StringsFileError(line: 1, reason: "not valid UTF-8 and has no UTF-16 byte order mark; save it as UTF-8 or UTF-16")
        }
        return Array(text.unicodeScalars)
    }
}

private struct StringsParser {
    let scalars: [Unicode.Scalar]
    var index = 0
    var line = 1

    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    func fail(_ reason: String) -> StringsFileError { StringsFileError(line: line, reason: reason) }

    mutating func parse() throws(StringsFileError) -> [String: String] {
        var entries: [String: String] = [:]
        while true {
            try skipTrivia()
            guard index < scalars.count else { return entries }
            let keyLine = line
            let key = try parseToken(what: "key")
            try skipTrivia()
            guard index < scalars.count, scalars[index] == "=" else { throw fail("expected '=' after key \"\(key)\"") }
            index += 1
            try skipTrivia()
            let value = try parseToken(what: "value")
            try skipTrivia()
            guard index < scalars.count, scalars[index] == ";" else { throw fail("expected ';' after the value of \"\(key)\"") }
            index += 1
            guard entries.updateValue(value, forKey: key) == nil else {
                throw StringsFileError(line: keyLine, reason: "duplicate key \"\(key)\"")
            }
        }
    }

    mutating func skipTrivia() throws(StringsFileError) {
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" {
                line += 1
                index += 1
            } else if scalar.properties.isWhitespace {
                index += 1
            } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
            } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                let startLine = line
                index += 2
                while index + 1 < scalars.count, !(scalars[index] == "*" && scalars[index + 1] == "/") {
                    if scalars[index] == "\n" { line += 1 }
                    index += 1
                }
                guard index + 1 < scalars.count else {
                    throw StringsFileError(line: startLine, reason: "unterminated /* comment")
                }
                index += 2
            } else {
                return
            }
        }
    }

    mutating func parseToken(what: String) throws(StringsFileError) -> String {
        guard index < scalars.count else { throw fail("expected a \(what) but the file ended") }
        if scalars[index] == "\"" { return try parseQuoted() }
        var token = String.UnicodeScalarView()
        while index < scalars.count,
            scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])
                || "_.-".unicodeScalars.contains(scalars[index])
        {
            token.append(scalars[index])
            index += 1
        }
        guard !token.isEmpty else { throw fail("expected a quoted \(what) but found '\(scalars[index])'") }
        return String(token)
    }

    mutating func parseQuoted() throws(StringsFileError) -> String {
        let startLine = line
        index += 1
        var text = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "\"":
                return String(text)
            case "\\":
                guard index < scalars.count else { break }
                let escaped = scalars[index]
                index += 1
                switch escaped {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "U", "u":
                    var value: UInt32 = 0
                    var digits = 0
                    while digits < 4, index < scalars.count, let digit = UInt32(String(scalars[index]), radix: 16) {
                        value = value << 4 | digit
                        digits += 1
                        index += 1
                    }
                    guard digits == 4, let decoded = Unicode.Scalar(value) else { throw fail("\\U escape needs four hex digits") }
                    text.append(decoded)
                default: text.append(escaped)
                }
            default:
                if scalar == "\n" { line += 1 }
                text.append(scalar)
            }
        }
        throw StringsFileError(line: startLine, reason: "unterminated quoted string")
    }
}
