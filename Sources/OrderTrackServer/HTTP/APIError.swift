import ApplePay
import HTTPTypes
import Hummingbird
import OrderModel

/// An error answered as JSON: `{"error": {"type", "code", "message", "param", "problems"}}`.
///
/// Merchant API errors carry every validation problem at once; device endpoints use the same type, but Wallet only
/// looks at the status.
package struct APIError: HTTPResponseError, Sendable {
    enum Kind: String, Sendable {
        case invalidRequest = "invalid_request_error"
        case authentication = "authentication_error"
        case permission = "permission_error"
        case notFound = "not_found_error"
        case conflict = "conflict_error"
        case unavailable = "service_unavailable_error"
        case rateLimit = "rate_limit_error"
        case api = "api_error"
    }

    package var status: HTTPResponse.Status
    var kind: Kind
    var code: String
    package var message: String
    var param: String?
    var problems: [ValidationProblem] = []
    var extraHeaders: HTTPFields = [:]
    /// More members of the error object (a 412's current version and last change).
    var details: [String: JSONValue] = [:]

    package var headers: HTTPFields { extraHeaders }

    package static func badRequest(_ code: String, _ message: String, param: String? = nil) -> APIError {
        APIError(status: .badRequest, kind: .invalidRequest, code: code, message: message, param: param)
    }

    package static func unauthorized(_ message: String) -> APIError {
        APIError(status: .unauthorized, kind: .authentication, code: "unauthorized", message: message)
    }

    package static func forbidden(_ code: String, _ message: String) -> APIError {
        APIError(status: .forbidden, kind: .permission, code: code, message: message)
    }

    /// A key without the scope an operation needs: 403, naming the scope in the message and, for programs, in
    /// `requiredScopes` (any one of them would do).
    static func scopeMissing(_ scope: [APIScope], operation: String, keyID: String) -> APIError {
        let needed = scope.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        return APIError(
            status: .forbidden, kind: .permission, code: "scope_missing",
            message: "API key \(keyID) lacks the scope \(needed) that \(operation) needs",
            details: ["requiredScopes": .array(scope.map { .string($0.rawValue) })])
    }

    package static func notFound(_ message: String) -> APIError {
        APIError(status: .notFound, kind: .notFound, code: "not_found", message: message)
    }

    static func conflict(_ code: String, _ message: String) -> APIError {
        APIError(status: .conflict, kind: .conflict, code: code, message: message)
    }

    /// 429 with `Retry-After`: a rate limit was reached; `limit` names it and its flag.
    static func tooManyRequests(_ limit: String, retryAfter: Duration) -> APIError {
        let seconds = retryAfter.retryAfterSeconds
        return APIError(
            status: .tooManyRequests, kind: .rateLimit, code: "rate_limited", message: "too many requests: \(limit); retry after \(seconds) s",
            extraHeaders: [.retryAfter: String(seconds)])
    }

    var body: JSONValue {
        var error = details
        error["type"] = .string(kind.rawValue)
        error["code"] = .string(code)
        error["message"] = .string(message)
        if let param { error["param"] = .string(param) }
        if !problems.isEmpty {
            error["problems"] = .array(
                problems.map { ["path": .string($0.path), "message": .string($0.message), "severity": .string($0.severity.rawValue)] })
        }
        return ["error": .object(error)]
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        try EditedResponse(status: status, headers: extraHeaders, response: body).response(from: request, context: context)
    }
}

extension APIError {
    /// A payment token that failed a check: 422 with the check's code (`invalid_signature`, `amount_mismatch`, …).
    init(_ error: ApplePayError) {
        self.init(status: .unprocessableContent, kind: .invalidRequest, code: error.code.description, message: error.reason, param: "token")
    }

    /// A domain error as the merchant API answers it: the one place that gives each ``OrderTrackError/Code`` its
    /// status, kind and envelope code.
    init(_ error: OrderTrackError) {
        let (status, kind, code): (HTTPResponse.Status, Kind, String)
        var param = error.field
        switch error.code {
        case .invalidJSON, .contentNotObject, .invalidOrderIdentifier, .webServiceURLFixed, .invalidOrderType, .orderTypeRequired, .invalidCursor,
            .invalidAssetType, .invalidStrings, .invalidMerchantName, .invalidWalletLink, .invalidLookupKey,
            .invalidAPIKey, .invalidCarrierConnection, .invalidBulkLine, .bulkTooLarge, .pkcs12Missing, .pkcs12TooLarge, .p8Missing, .p8TooLarge:
            (status, kind, code) = (.badRequest, .invalidRequest, error.code.name)
        case .incompleteOrder:
            (status, kind, code) = (.badRequest, .invalidRequest, OrderTrackError.Code.invalidOrder.name)
        case .invalidOrder, .invalidPatch, .invalidOrderDefaults:
            (status, kind, code) = (.unprocessableContent, .invalidRequest, error.code.name)
        case .orderTypeRejected:
            // Refused configurations reach the API only through PUT /order-types, whose body is the identity.
            (status, kind, code) = (.unprocessableContent, .invalidRequest, error.code.name)
            param = "pkcs12"
        case .orderTypeNotOwned, .orderTypeNotAllowed, .changeNotAllowed:
            (status, kind, code) = (.forbidden, .permission, error.code.name)
        case .notFound:
            (status, kind, code) = (.notFound, .notFound, error.code.name)
        case .versionMismatch:
            (status, kind, code) = (.preconditionFailed, .conflict, error.code.name)
        case .orderExists, .orderNumberExists, .updateContention, .idempotencyKeyReused, .paymentAlreadyUsed, .applePayNotConfigured,
            .ambiguousAuthenticationToken:
            (status, kind, code) = (.conflict, .conflict, error.code.name)
        case .validationURLNotAllowed, .domainNotRegistered:
            (status, kind, code) = (.badRequest, .invalidRequest, error.code.name)
        case .invalidPaymentIdentity, .invalidMerchantIdentity, .invalidWebhookEndpoint:
            (status, kind, code) = (.unprocessableContent, .invalidRequest, error.code.name)
        case .applePayGatewayFailed:
            (status, kind, code) = (.badGateway, .api, error.code.name)
        default:
            // The server cannot do what was asked (an order type without a usable signing identity).
            (status, kind, code) = (.internalServerError, .api, error.code.name)
        }
        self.init(status: status, kind: kind, code: code, message: error.reason, param: param, problems: error.problems, details: error.details)
        if error.code == .versionMismatch, case .number(let text)? = error.details["currentVersion"], let version = Int(text) {
            extraHeaders[.eTag] = OrderETag.value(version: version)
        }
    }
}
