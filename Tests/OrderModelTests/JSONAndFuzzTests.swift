import Foundation
import OrderModel
import Testing

@Suite struct JSONTests {
    @Test func parsesAndSerializesDeterministically() throws {
        let text = #"{"b":[1,-0.5,2e10,true,false,null],"a":"x\"y\\z\n\u00e9\ud83d\ude00/"}"#
        let value = try JSONValue.parse(Array(text.utf8))
        #expect(value["b"]?.arrayValue?[2] == .number("2e10"))
        #expect(value["a"] == .string("x\"y\\z\né😀/"))
        #expect(value.serializedString() == #"{"a":"x\"y\\z\né😀/","b":[1,-0.5,2e10,true,false,null]}"#)
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(try JSONValue.parse(value.serialized(pretty: true)) == value)
    }

    @Test(arguments: [
        ("", "expected a value but found the end of input"),
        ("{\"a\":1,}", "expected a quoted key"),
        ("[1 2]", "expected ',' or ']'"),
        ("{\"a\":1,\"a\":2}", "duplicate key \"a\""),
        ("01", "leading zeros"),
        ("\"\\x\"", "invalid escape"),
        ("\"\\ud800\"", "unpaired UTF-16 high surrogate"),
        ("\"abc", "unterminated string"),
        ("tru", "expected 'true'"),
        ("{} {}", "after the end of the document"),
        ("\"a\u{01}\"", "control character"),
    ])
    func rejectsMalformedJSON(text: String, reason: String) {
        #expect {
            try JSONValue.parse(Array(text.utf8))
        } throws: { error in
            (error as? JSONParseError)?.reason.contains(reason) == true
        }
    }

    @Test func boundsNestingDepth() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(deep.utf8)) }
        let invalidUTF8: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: JSONParseError.self) { try JSONValue.parse(invalidUTF8) }
    }

    @Test func formatsRFC3339() {
        let date = DateTimeFormat.parseRFC3339("1969-12-31T23:59:59.250Z")!
        #expect(DateTimeFormat.formatRFC3339(date) == "1969-12-31T23:59:59.250Z")
        #expect(DateTimeFormat.formatRFC3339(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
    }

    @Test func utcComponentsMatchTheCalendar() {
        let rfc = DateTimeFormat.utcComponents(Date(timeIntervalSince1970: 784_111_777)) // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(rfc.year == 1994 && rfc.month == 11 && rfc.day == 6 && rfc.hour == 8 && rfc.minute == 49 && rfc.second == 37 && rfc.weekday == 0)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for seconds in stride(from: -400_000_000.0, to: 4_000_000_000, by: 7_777_777.7) {
            let date = Date(timeIntervalSince1970: seconds)
            let expected = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
            let actual = DateTimeFormat.utcComponents(date)
            #expect(actual.year == expected.year && actual.month == expected.month && actual.day == expected.day, "\(date)")
            #expect(actual.hour == expected.hour && actual.minute == expected.minute && actual.second == expected.second, "\(date)")
            #expect(actual.weekday == expected.weekday! - 1, "\(date)")
        }
    }

    @Test func readsStringsFiles() throws {
        let text = "// comment\n/* block\n comment */\n\"A\" = \"1 \\\"quoted\\\" \\n\";\nB = \"\\U00E9\";\n"
        let entries = try StringsFile.parse(Array(text.utf8))
        #expect(entries == ["A": "1 \"quoted\" \n", "B": "é"])
        let utf16BigEndian: [UInt8] = [0xFE, 0xFF] + Array("\"K\" = \"V\";".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(try StringsFile.parse(utf16BigEndian) == ["K": "V"])
        #expect(throws: StringsFileError.self) { try StringsFile.parse(Array("\"A\" = \"1\";\n\"A\" = \"2\";".utf8)) }
        #expect(throws: StringsFileError.self) { try StringsFile.parse([0xFF, 0xFE, 0x41]) }
        #expect(throws: StringsFileError.self) { try StringsFile.parse(Array("/* open".utf8)) }
    }
}

/// Feeds thousands of mutated and random documents to the parser, validator and model: none may crash or hang.
@Suite struct FuzzTests {
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    static let interestingValues: [JSONValue] = [
        .null, true, 0, .number("-1e309"), .number("1e400"), .number("0.000000000000000000001"), "", "open", "https://",
        "2026-13-45T99:99:99Z", "P", [], [:], [[:]], .string(String(repeating: "x", count: 5000)), "\u{0}", "\u{FEFF}",
        ["fulfillmentType": "shipping"], ["fulfillmentType": "pickup"], ["amount": "1.2.3", "currency": "US"],
    ]

    func mutate(_ value: JSONValue, using random: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        let roll = Int.random(in: 0..<10, using: &random)
        if depth > 6 || roll == 0 { return Self.interestingValues.randomElement(using: &random)! }
        switch value {
        case .object(var members):
            if let key = members.keys.sorted().randomElement(using: &random) {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: members[key] = nil
                case 1: members[key] = Self.interestingValues.randomElement(using: &random)!
                default: members[key] = mutate(members[key]!, using: &random, depth: depth + 1)
                }
            }
            if roll == 1 { members["unknown\(roll)"] = 1 }
            return .object(members)
        case .array(var elements):
            if !elements.isEmpty {
                let index = Int.random(in: 0..<elements.count, using: &random)
                elements[index] = mutate(elements[index], using: &random, depth: depth + 1)
            }
            if roll == 2 { elements.append(contentsOf: elements) }
            return .array(elements)
        default:
            return Self.interestingValues.randomElement(using: &random)!
        }
    }

    @Test func mutatedDocumentsNeverCrash() {
        var random = SeededGenerator(state: 42)
        var invalid = 0
        for _ in 0..<3000 {
            let document = mutate(Fixtures.fullOrder, using: &random)
            let report = OrderValidator.validate(document: document, package: PackageContents(files: Fixtures.fullOrderFiles))
            if !report.isValid { invalid += 1 }
            if let parsed = try? OrderDocument(json: document) {
                #expect(OrderValidator.validate(document: parsed.json).isValid)
            }
            #expect(report.problems.allSatisfy { !$0.message.isEmpty })
        }
        #expect(invalid > 1000, "mutations should mostly produce invalid documents")
    }

    @Test func randomBytesNeverCrash() {
        var random = SeededGenerator(state: 7)
        let seed = Fixtures.fullOrder.serialized()
        for iteration in 0..<3000 {
            var bytes: [UInt8]
            if iteration % 3 == 0 {
                bytes = (0..<Int.random(in: 0..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                bytes = seed
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let position = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes.remove(at: position)
                    default: bytes.insert(Array("{}[]\",:\\".utf8).randomElement(using: &random)!, at: position)
                    }
                }
            }
            let report = OrderValidator.validate(orderJSON: bytes)
            #expect(!report.problems.isEmpty || (try? JSONValue.parse(bytes)) != nil)
            _ = try? StringsFile.parse(bytes)
        }
    }
}
