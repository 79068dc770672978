import HTTPTypes
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
package struct SerializedJSON: ResponseGenerator {
    var bytes: [UInt8]
    /// More header fields (an order's `ETag`).
    var headers: HTTPFields = [:]

    package init(bytes: [UInt8], headers: HTTPFields = [:]) {
        self.bytes = bytes
        self.headers = headers
    }

    package func response(from request: Request, context: some RequestContext) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
