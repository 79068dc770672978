import Hummingbird
import NIOCore
import OrderModel

extension JSONValue: ResponseGenerator {
    /// The value as a 200 `application/json` response; `EditedResponse` gives it another status.
    public func response(from request: Request, context: some RequestContext) -> Response {
        SerializedJSON(bytes: serialized()).response(from: request, context: context)
    }
}

/// JSON serialized already: order documents serialized on the CPU pool, or a response stored under an idempotency key.
struct SerializedJSON: ResponseGenerator {
    var bytes: [UInt8]

    func response(from request: Request, context: some RequestContext) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
