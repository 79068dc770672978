// libFuzzer: -max_len=16384
import OrderModel

// JSONValue.parse on arbitrary bytes; a parsed tree must survive serialization (compact and pretty) unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let value: JSONValue
    do {
        value = try JSONValue.parse(bytes)
    } catch {
        precondition(error.line >= 1 && error.column >= 1, "error position out of range: \(error)")
        return 0
    }
    let compact = value.serialized()
    precondition((try? JSONValue.parse(compact)) == value, "compact serialization does not parse back to the same tree")
    precondition((try? JSONValue.parse(value.serialized(pretty: true))) == value, "pretty serialization does not parse back")
    precondition((try? JSONValue.parse(compact))?.serialized() == compact, "serialization is not deterministic")
    return 0
}
