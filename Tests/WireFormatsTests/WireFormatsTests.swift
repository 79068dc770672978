import Foundation
import Testing
import WireFormats

@Suite struct Base64URLTests {
    // RFC 4648 §10 test vectors, without padding.
    @Test(arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")])
    func encodesTheRFCVectorsWithoutPadding(text: String, encoded: String) {
        #expect(Base64URL.encode(text.utf8) == encoded)
        #expect(Base64URL.decode(encoded) == Array(text.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Data(bytes).base64EncodedString() == "+/+/")
        #expect(Base64URL.encode(bytes) == "-_-_")
        #expect(Base64URL.decode("-_-_") == bytes)
    }

    @Test func roundTripsEveryLengthAndByte() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(Base64URL.decode(encoded) == bytes)
        }
    }

    @Test(arguments: ["+/+/", "Zg==", "Zm9v=", "Zm9v YmFy", "Z", "Zm9vY", "é", "Zm9v\n"])
    func rejectsTextOutsideUnpaddedBase64URL(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}

@Suite struct CivilDateTests {
    @Test(arguments: [
        (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (2000, 3, 1, 11_017), (1980, 1, 1, 3652),
        (2107, 12, 31, 50_402), (1, 1, 1, -719_162), (9999, 12, 31, 2_932_896), (1900, 3, 1, -25_508),
    ])
    func convertsBetweenDatesAndDays(year: Int, month: Int, day: Int, days: Int) {
        #expect(CivilDate.daysSince1970(year: year, month: month, day: day) == days)
        let date = CivilDate.date(daysSince1970: days)
        #expect(date.year == year && date.month == month && date.day == day)
    }

    @Test func agreesWithFoundationsGregorianCalendarDayByDay() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        // From 1582-10-15: before it Foundation's Gregorian calendar counts Julian dates.
        for days in stride(from: -141_427, through: 800_000, by: 997) {
            let components = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            let date = CivilDate.date(daysSince1970: days)
            #expect([date.year, date.month, date.day] == [components.year, components.month, components.day], "day \(days)")
            #expect(CivilDate.daysSince1970(year: date.year, month: date.month, day: date.day) == days)
        }
    }

    @Test(arguments: [(2024, 2, 29), (2023, 2, 28), (1900, 2, 28), (2000, 2, 29), (2024, 4, 30), (2024, 12, 31)])
    func knowsMonthLengths(year: Int, month: Int, days: Int) {
        #expect(CivilDate.daysIn(month: month, year: year) == days)
    }
}

@Suite struct HexTests {
    @Test func encodesEveryByteAsTwoLowerCaseDigitsAndDecodesThemBack() {
        let bytes = (0...255).map(UInt8.init)
        let text = Hex.encode(bytes)
        #expect(text.hasPrefix("000102030405060708090a0b0c0d0e0f10") && text.hasSuffix("fafbfcfdfeff") && text.utf8.count == 512)
        #expect(Hex.decode(text) == bytes && Hex.decode(text.uppercased()) == bytes)
        #expect(Hex.decode("abc") == nil && Hex.decode("0g") == nil)
    }
}

@Suite struct PercentEncodingTests {
    @Test func encodesEveryByteTheCallerDoesNotKeepAsUpperCaseHex() {
        #expect(PercentEncoding.encode("a Z9/é%", keeping: PercentEncoding.isASCIIAlphanumeric) == "a%20Z9%2F%C3%A9%25")
        #expect(PercentEncoding.encode("x-y.z", keeping: { $0 == UInt8(ascii: "-") || PercentEncoding.isASCIIAlphanumeric($0) }) == "x-y%2Ez")
        #expect(PercentEncoding.encode("\u{0}\u{7F}", keeping: { _ in false }) == "%00%7F")
        #expect(PercentEncoding.encode("", keeping: { _ in false }).isEmpty)
    }
}
