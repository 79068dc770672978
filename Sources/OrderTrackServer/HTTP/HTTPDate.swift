import Foundation
import OrderModel

/// HTTP-dates (RFC 9110 §5.6.7): IMF-fixdate out; IMF-fixdate, RFC 850 and asctime in.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`; fractions of a second are truncated, as HTTP-dates have none.
    static func format(_ date: Date) -> String {
        let utc = DateTimeFormat.utcComponents(date)
        func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[utc.weekday]), \(pad(utc.day)) \(months[utc.month - 1]) \(utc.year) \(pad(utc.hour)):\(pad(utc.minute)):\(pad(utc.second)) GMT"
    }

    /// Parses the three forms RFC 9110 requires recipients to accept; `nil` for anything else.
    static func parse(_ text: String) -> Date? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let day: Int?
        let month: Int?
        let year: Int?
        let time: String
        switch fields.count {
        case 6 where fields[5] == "GMT":  // Sun, 06 Nov 1994 08:49:37 GMT
            (day, month, year, time) = (Int(fields[1]), months.firstIndex(of: fields[2]), Int(fields[3]), fields[4])
        case 4 where fields[3] == "GMT":  // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = fields[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let shortYear = Int(parts[2]) else { return nil }
            (day, month, year, time) = (Int(parts[0]), months.firstIndex(of: parts[1]), shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, fields[2])
        case 5:  // Sun Nov  6 08:49:37 1994
            (day, month, year, time) = (Int(fields[2]), months.firstIndex(of: fields[1]), Int(fields[4]), fields[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let day, let month, let year, clock.count == 3, clock[0] < 24, clock[1] < 60, clock[2] <= 60, day >= 1, day <= 31 else { return nil }
        var components = DateComponents(year: year, month: month + 1, day: day, hour: clock[0], minute: clock[1], second: min(clock[2], 59))
        components.timeZone = TimeZone(identifier: "UTC")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }
}
