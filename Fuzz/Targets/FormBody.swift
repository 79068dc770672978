// libFuzzer: -max_len=4096
// Modules: Hummingbird
import Hummingbird

// Form bodies as `POST /api/v1/notify` receives them, decoded by Hummingbird's URLEncodedFormDecoder into the same
// shape as the route's form. Any input must end in a value or a thrown error, never a trap or runaway memory.
struct NotifyForm: Decodable {
    var orderTypeIdentifier: String?
    var orderIdentifier: String?

    enum CodingKeys: String, CodingKey {
        case orderTypeIdentifier = "order_type_identifier"
        case orderIdentifier = "order_identifier"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let form = try? URLEncodedFormDecoder().decode(NotifyForm.self, from: text) {
        precondition((form.orderTypeIdentifier?.utf8.count ?? 0) <= text.utf8.count, "percent-decoding lengthened a value")
        precondition((form.orderIdentifier?.utf8.count ?? 0) <= text.utf8.count, "percent-decoding lengthened a value")
    }
    return 0
}
