// libFuzzer: -max_len=16384
import OrderModel

// The validator promises never to crash or hang; a document it passes must decode to the typed model, and the
// model's own (normalized) bytes must pass again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let (document, report) = OrderValidator.parseAndValidate(orderJSON: bytes)
    precondition(report.problems.allSatisfy { !$0.message.isEmpty }, "a problem without a message")
    guard let document, report.isValid else { return 0 }
    let decoded: OrderDocument
    do {
        decoded = try OrderDocument(json: document)
    } catch {
        preconditionFailure("valid document does not decode: \(error)")
    }
    let again = OrderValidator.validate(orderJSON: decoded.bytes)
    precondition(again.isValid, "normalized document is invalid: \(again.errors)")
    return 0
}
