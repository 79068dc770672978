// libFuzzer: -max_len=256
import Foundation
import OrderModel

// RFC 3339 date-times and ISO 8601 durations from order.json. A parsed date must format and parse back to the same
// instant (to the millisecond the formatter keeps) whenever its year fits the four-digit field.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let date = DateTimeFormat.parseRFC3339(text), (0...9999).contains(DateTimeFormat.utcComponents(date).year) {
        let formatted = DateTimeFormat.formatRFC3339(date)
        guard let again = DateTimeFormat.parseRFC3339(formatted) else { preconditionFailure("\(formatted) does not parse") }
        precondition(abs(again.timeIntervalSince(date)) < 0.001, "\(formatted) is not the date of \(text)")
    }
    if DateTimeFormat.isISO8601Duration(text) {
        precondition(text.first == "P" && text.allSatisfy { "0123456789.,PYMWDTHS".contains($0) }, "accepted duration \(text)")
    }
    return 0
}
