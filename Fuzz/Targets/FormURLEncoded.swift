// libFuzzer: -max_len=4096
import RequestSyntax

// Form bodies of the notify endpoint. Parsing must never trap, stays within the field cap, and a body made of the
// parsed pairs (names and values without separators) must parse back to the same pairs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fields = FormURLEncoded.parse(UnsafeBufferPointer(start: data, count: size))
    precondition(fields.count <= FormURLEncoded.maximumFields, "more fields than the cap")
    let plain = fields.filter { field in
        (field.name + field.value).utf8.allSatisfy { byte in
            byte != UInt8(ascii: "&") && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "+")
                && byte != UInt8(ascii: " ")
        } && !field.name.isEmpty
    }
    let body = plain.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    let again = FormURLEncoded.parse(Array(body.utf8))
    precondition(again.map(\.name) == plain.map(\.name) && again.map(\.value) == plain.map(\.value), "round trip changed \(body.debugDescription)")
    return 0
}
