// libFuzzer: -max_len=4096
import Foundation
import OrderModel

// URIs and e-mail addresses from order.json. An accepted URI ends up in links and headers, so it must be
// printable ASCII with a scheme, and the typed model decodes it as a Foundation URL, so URL must accept it too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if TextFormat.isAbsoluteURI(text) {
        precondition(text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "URI with a non-printable byte accepted")
        precondition(TextFormat.scheme(of: text).map { !$0.isEmpty } == true, "URI without a scheme accepted")
        precondition(URL(string: text) != nil, "URI accepted that Foundation's URL rejects: \(text)")
    }
    _ = TextFormat.isEmailAddress(text)
    return 0
}
