import HTTPTypes
import Hummingbird
import NIOCore
import OrderModel

/// An error answered as JSON: `{"error": {"type", "code", "message", "param", "problems"}}`.
///
/// Merchant API errors carry every validation problem at once; device endpoints use the same type, but Wallet only
/// looks at the status.
struct APIError: HTTPResponseError, Sendable {
    enum Kind: String, Sendable {
        case invalidRequest = "invalid_request_error"
        case authentication = "authentication_error"
        case permission = "permission_error"
        case notFound = "not_found_error"
        case conflict = "conflict_error"
        case unavailable = "service_unavailable_error"
        case api = "api_error"
    }

    var status: HTTPResponse.Status
    var kind: Kind
    var code: String
    var message: String
    var param: String?
    var problems: [ValidationProblem] = []
    var extraHeaders: HTTPFields = [:]

    var headers: HTTPFields { extraHeaders }

    static func badRequest(_ code: String, _ message: String, param: String? = nil) -> APIError {
        APIError(status: .badRequest, kind: .invalidRequest, code: code, message: message, param: param)
    }

    static func unauthorized(_ message: String) -> APIError {
        APIError(status: .unauthorized, kind: .authentication, code: "unauthorized", message: message)
    }

    static func notFound(_ message: String) -> APIError {
        APIError(status: .notFound, kind: .notFound, code: "not_found", message: message)
    }

    static func conflict(_ code: String, _ message: String) -> APIError {
        APIError(status: .conflict, kind: .conflict, code: code, message: message)
    }

    static func invalidOrder(_ problems: [ValidationProblem], message: String = "the order is invalid") -> APIError {
        let errors = problems.filter { $0.severity == .error }
        let summary = errors.prefix(3).map(\.description).joined(separator: "; ")
        return APIError(
            status: .unprocessableContent, kind: .invalidRequest, code: "order_invalid",
            message: "\(message) (\(errors.count) problem\(errors.count == 1 ? "" : "s")): \(summary)\(errors.count > 3 ? "; …" : "")",
            param: errors.first?.path, problems: problems)
    }

    var body: JSONValue {
        var error: [String: JSONValue] = ["type": .string(kind.rawValue), "code": .string(code), "message": .string(message)]
        if let param { error["param"] = .string(param) }
        if !problems.isEmpty {
            error["problems"] = .array(
                problems.map { ["path": .string($0.path), "message": .string($0.message), "severity": .string($0.severity.rawValue)] })
        }
        return ["error": .object(error)]
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = extraHeaders
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.serialized())))
    }
}
