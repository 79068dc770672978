// libFuzzer: -max_len=256
import Foundation
import OrderModel

// If-Modified-Since and other HTTP-date headers from any client. A parsed date must format and parse back to
// the same instant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let date = HTTPDate.parse(text) else { return 0 }
    let formatted = HTTPDate.format(date)
    precondition(HTTPDate.parse(formatted) == date, "\(formatted) does not parse back to the date of \(text)")
    return 0
}
