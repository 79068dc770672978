// libFuzzer: -max_len=9000
import Foundation
import RequestSyntax

// If-Match header values from any client. Parsing must never trap; every tag it reads is bounded, appears in the
// value between quotes, and the value is within the length bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    switch EntityTagCondition.parse(text) {
    case .any:
        precondition(text.contains("*"), "* read from \(text.debugDescription)")
    case .tags(let tags):
        precondition(text.utf8.count <= EntityTagCondition.maximumLength && tags.count <= EntityTagCondition.maximumTags)
        for tag in tags {
            precondition(text.contains("\"\(tag.opaque)\""), "tag \(tag.opaque.debugDescription) is not quoted in \(text.debugDescription)")
            precondition(!tag.opaque.contains("\""), "a tag holds a quote")
        }
    case nil:
        break
    }
    return 0
}
