import Foundation
import SwiftASN1
import WireFormats

/// The `signingTime` attribute's value, UTCTime or GeneralizedTime (RFC 5652 §11.3), as a `Date`.
enum CMSTime {
    static func date(_ node: ASN1Node) throws -> Date {
        let (year, month, day, hours, minutes, seconds): (Int, Int, Int, Int, Int, Double)
        if node.identifier == .utcTime {
            let time = try UTCTime(derEncoded: node)
            (year, month, day, hours, minutes, seconds) = (time.year, time.month, time.day, time.hours, time.minutes, Double(time.seconds))
        } else {
            let time = try GeneralizedTime(derEncoded: node)
            (year, month, day, hours, minutes, seconds) = (
                time.year, time.month, time.day, time.hours, time.minutes, Double(time.seconds) + time.fractionalSeconds
            )
        }
        let days = CivilDate.daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hours * 3_600 + minutes * 60) + seconds)
    }
}
