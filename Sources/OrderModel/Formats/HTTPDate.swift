import Foundation
import WireFormats

/// HTTP-dates (RFC 9110 §5.6.7): IMF-fixdate out; IMF-fixdate, the obsolete RFC 850 form and asctime in.
///
/// `If-Modified-Since` comes from devices, so ``parse(_:)`` treats its input as hostile: it reads at most
/// ``maximumLength`` bytes, follows the grammar byte by byte with a fixed number of digits per field, and so never
/// builds a number it cannot hold.
public enum HTTPDate {
    /// Longest input ``parse(_:)`` looks at. The longest valid HTTP-date, `Wednesday, 09-Nov-94 08:49:37 GMT`, has
    /// 33 bytes; the margin only allows for surrounding whitespace.
    public static let maximumLength = 64

    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    // 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the dates a four-digit year can express.
    private static let earliest: TimeInterval = -62_135_596_800
    private static let latest: TimeInterval = 253_402_300_799

    /// Formats `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    ///
    /// Fractions of a second are truncated, as HTTP-dates have none. Dates before year 1 or after year 9999 (and
    /// non-finite ones) are clamped to the first or last second an IMF-fixdate can express, so the result always
    /// parses back with ``parse(_:)``.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let clamped = interval.isNaN ? earliest : min(max(interval, earliest), latest)
        let utc = DateTimeFormat.utcComponents(Date(timeIntervalSince1970: clamped))
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: width - digits.count) + digits
        }
        return "\(dayNames[utc.weekday]), \(pad(utc.day, 2)) \(monthNames[utc.month - 1]) \(pad(utc.year, 4)) "
            + "\(pad(utc.hour, 2)):\(pad(utc.minute, 2)):\(pad(utc.second, 2)) GMT"
    }

    /// Parses the three forms RFC 9110 requires recipients to accept, or returns `nil`:
    ///
    /// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`; two-digit years below 70 are 20xx, the others 19xx
    /// - asctime: `Sun Nov  6 08:49:37 1994` (the day is two digits or a space and one digit)
    ///
    /// Names are case-sensitive and every number has exactly the digits the grammar gives it. The year is 0001–9999,
    /// the day must exist in its month (no February 30), the hour is 00–23, the minute 00–59 and the second 00–60, a
    /// leap second counting as :59. The day name is not checked against the date. Whitespace around the date is ignored; input longer than
    /// ``maximumLength`` bytes is rejected unread.
    public static func parse(_ text: String) -> Date? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(maximumLength)
        for byte in text.utf8 {
            guard bytes.count < maximumLength else { return nil }
            bytes.append(byte)
        }
        var scanner = Scanner(bytes: trimmingWhitespace(bytes[...]))
        guard let fields = scanner.scanDate(), scanner.isAtEnd else { return nil }
        let (day, month, year, hour, minute, second) = fields
        // Every field has a fixed number of digits, so no value exceeds 9999 and none of this can overflow.
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year), year >= 1,
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        let days = CivilDate.daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)))
    }

    private static func trimmingWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var trimmed = bytes
        while let first = trimmed.first, isWhitespace(first) { trimmed.removeFirst() }
        while let last = trimmed.last, isWhitespace(last) { trimmed.removeLast() }
        return trimmed
    }

    /// Reads one HTTP-date from the front of a short byte slice.
    private struct Scanner {
        var bytes: ArraySlice<UInt8>

        var isAtEnd: Bool { bytes.isEmpty }

        /// (day, month 1–12, year, hour, minute, second), range checks left to the caller.
        mutating func scanDate() -> (Int, Int, Int, Int, Int, Int)? {
            let name = scanLetters()
            if scan(",") {
                guard scan(" ") else { return nil }
                if HTTPDate.dayNames.contains(name) {
                    // IMF-fixdate: day-name "," SP 2DIGIT SP month SP 4DIGIT SP time-of-day SP "GMT"
                    guard let day = scanDigits(2), scan(" "), let month = scanMonth(), scan(" "), let year = scanDigits(4),
                        scan(" "), let (hour, minute, second) = scanTimeOfDay(), scan(" GMT")
                    else { return nil }
                    return (day, month, year, hour, minute, second)
                }
                // RFC 850: day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP "GMT"
                guard HTTPDate.longDayNames.contains(name), let day = scanDigits(2), scan("-"), let month = scanMonth(), scan("-"),
                    let shortYear = scanDigits(2), scan(" "), let (hour, minute, second) = scanTimeOfDay(), scan(" GMT")
                else { return nil }
                return (day, month, shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, hour, minute, second)
            }
            // asctime: day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP 4DIGIT
            guard HTTPDate.dayNames.contains(name), scan(" "), let month = scanMonth(), scan(" ") else { return nil }
            let day = scan(" ") ? scanDigits(1) : scanDigits(2)
            guard let day, scan(" "), let (hour, minute, second) = scanTimeOfDay(), scan(" "), let year = scanDigits(4) else {
                return nil
            }
            return (day, month, year, hour, minute, second)
        }

        /// The ASCII letters at the front, at most enough for the longest day name.
        mutating func scanLetters() -> String {
            var letters: [UInt8] = []
            while letters.count < 9, let byte = bytes.first, (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") {
                letters.append(byte)
                bytes.removeFirst()
            }
            return String(decoding: letters, as: UTF8.self)
        }

        mutating func scanMonth() -> Int? {
            guard bytes.count >= 3 else { return nil }
            let name = String(decoding: bytes.prefix(3), as: UTF8.self)
            guard let index = HTTPDate.monthNames.firstIndex(of: name) else { return nil }
            bytes.removeFirst(3)
            return index + 1
        }

        /// time-of-day = 2DIGIT ":" 2DIGIT ":" 2DIGIT
        mutating func scanTimeOfDay() -> (Int, Int, Int)? {
            guard let hour = scanDigits(2), scan(":"), let minute = scanDigits(2), scan(":"), let second = scanDigits(2) else {
                return nil
            }
            return (hour, minute, second)
        }

        /// Exactly `count` (at most 4) decimal digits.
        mutating func scanDigits(_ count: Int) -> Int? {
            guard bytes.count >= count else { return nil }
            var value = 0
            for byte in bytes.prefix(count) {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            bytes.removeFirst(count)
            return value
        }

        mutating func scan(_ literal: String) -> Bool {
            guard bytes.starts(with: literal.utf8) else { return false }
            bytes.removeFirst(literal.utf8.count)
            return true
        }
    }
}
