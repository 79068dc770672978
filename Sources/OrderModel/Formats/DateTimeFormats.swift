import Foundation
import WireFormats

/// RFC 3339 date-times and ISO 8601 durations, parsed strictly and without `DateFormatter` (fast and allocation-light).
public enum DateTimeFormat {
    /// Parses an RFC 3339 `date-time` (`2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.250+02:00`).
    /// Returns `nil` for anything else, including calendar-invalid dates such as February 30.
    public static func parseRFC3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for position in range {
                let byte = bytes[position]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), bytes[4] == UInt8(ascii: "-"), let month = number(5..<7), bytes[7] == UInt8(ascii: "-"),
            let day = number(8..<10), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            let hour = number(11..<13), bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16),
            bytes[16] == UInt8(ascii: ":"), let second = number(17..<19)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year), hour <= 23, minute <= 59, second <= 60 else {
            return nil
        }
        var position = 19
        var fraction = 0.0
        if bytes[position] == UInt8(ascii: ".") {
            position += 1
            let start = position
            var scale = 0.1
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                fraction += Double(bytes[position] - UInt8(ascii: "0")) * scale
                scale /= 10
                position += 1
            }
            guard position > start else { return nil }
        }
        guard position < bytes.count else { return nil }
        var offsetSeconds = 0
        switch bytes[position] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            position += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard bytes.count - position == 6, let offsetHour = number(position + 1..<position + 3),
                bytes[position + 3] == UInt8(ascii: ":"), let offsetMinute = number(position + 4..<position + 6),
                offsetHour <= 23, offsetMinute <= 59
            else { return nil }
            offsetSeconds = (offsetHour * 3600 + offsetMinute * 60) * (bytes[position] == UInt8(ascii: "-") ? -1 : 1)
            position += 6
        default:
            return nil
        }
        guard position == bytes.count else { return nil }
        let days = CivilDate.daysSince1970(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// Formats a date as RFC 3339 in UTC to the nearest millisecond (`2024-05-01T12:30:00.250Z`). Nearest, not
    /// truncated: a parsed `.51` before 1970 is -0.49 s, which binary floating point holds as a hair below -490 ms.
    public static func formatRFC3339(_ date: Date) -> String {
        // Rounded to the millisecond (a parsed .123 is 122.99… after the Double); but a date before year 10000 never
        // rounds into it: four year digits are all RFC 3339 has, and "10000-01-01" would not parse again.
        let exact = date.timeIntervalSince1970 * 1000
        var totalMilliseconds = Int64(exact.rounded())
        if totalMilliseconds >= Self.yearTenThousand, exact < Double(Self.yearTenThousand) { totalMilliseconds = Self.yearTenThousand - 1 }
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let totalSeconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        var days = Int(totalSeconds / 86_400)
        var secondOfDay = Int(totalSeconds % 86_400)
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):"
            + "\(pad(secondOfDay % 60, 2)).\(pad(milliseconds, 3))Z"
    }

    /// 10000-01-01T00:00:00Z in milliseconds since 1970.
    static let yearTenThousand: Int64 = 253_402_300_800_000

    /// UTC calendar fields of a date, whole seconds (weekday 0 = Sunday), without `Calendar`'s cost.
    public static func utcComponents(_ date: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        // 1970-01-01 was a Thursday.
        let weekday = ((days % 7) + 11) % 7
        return (year, month, day, secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, weekday)
    }

    /// Whether `text` is an ISO 8601 duration such as `PT30M`, `P1DT2H` or `P0Y0M0DT0H30M0S`.
    public static func isISO8601Duration(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        guard bytes.popFirst() == UInt8(ascii: "P"), !bytes.isEmpty else { return false }
        if bytes.last == UInt8(ascii: "W") {
            return isNumber(bytes.dropLast())
        }
        let dateUnits: [UInt8] = Array("YMD".utf8)
        let timeUnits: [UInt8] = Array("HMS".utf8)
        var inTime = false
        var nextUnit = 0
        var componentCount = 0
        var timeComponents = 0
        var digits: ArraySlice<UInt8> = []
        var sawFraction = false
        for byte in bytes {
            if byte == UInt8(ascii: "T") {
                guard !inTime, digits.isEmpty else { return false }
                inTime = true
                nextUnit = 0
                continue
            }
            if (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ",") {
                digits.append(byte)
                continue
            }
            let units = inTime ? timeUnits : dateUnits
            guard let unitIndex = units.firstIndex(of: byte), unitIndex >= nextUnit, isNumber(digits), !sawFraction else { return false }
            if digits.contains(UInt8(ascii: ".")) || digits.contains(UInt8(ascii: ",")) { sawFraction = true }
            nextUnit = unitIndex + 1
            componentCount += 1
            if inTime { timeComponents += 1 }
            digits = []
        }
        return digits.isEmpty && componentCount > 0 && (!inTime || timeComponents > 0)
    }

    private static func isNumber(_ digits: ArraySlice<UInt8>) -> Bool {
        guard let first = digits.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return false }
        var separators = 0
        for byte in digits {
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: ",") {
                separators += 1
            } else if byte < UInt8(ascii: "0") || byte > UInt8(ascii: "9") {
                return false
            }
        }
        let last = digits.last!
        return separators <= 1 && last >= UInt8(ascii: "0") && last <= UInt8(ascii: "9")
    }
}
