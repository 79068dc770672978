// libFuzzer: -max_len=2048
// Modules: HummingbirdCore
import HummingbirdCore
import OrderModel

// Request targets with query strings, as every list and registrations call receives them: Hummingbird splits and
// percent-decodes the query, then the routes read their values (integers, RFC 3339 dates). Nothing may trap, and no
// parsed key may still hold the separators it was split on.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let uri = URI("/api/v1/orders?" + text)
    for (key, value) in uri.queryParameters {
        precondition(!key.contains("&"), "a key holds the pair separator")
        _ = Int(value)
        _ = Int64(value)
        _ = DateTimeFormat.parseRFC3339(String(value))
    }
    return 0
}
