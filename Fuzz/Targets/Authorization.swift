// libFuzzer: -max_len=1024
import Foundation
import RequestSyntax

// Authorization header values from any client. Parsing must never trap, and what it reads as a scheme must be one of
// the three, followed by the rest of the value unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    switch AuthorizationCredentials.parse(text) {
    case .bearer(let token), .appleOrder(let token):
        precondition(
            text.hasSuffix(token) && text.utf8.count == token.utf8.count + text.prefix { $0 != " " }.utf8.count + 1,
            "credential is not the rest of \(text.debugDescription)")
    case .basic(let user, _):
        precondition(!user.contains(":"), "a user name holds the separator")
    case nil:
        break
    }
    return 0
}
