import ApplePay
import Foundation
import HTTPTypes
import Hummingbird
import OrderModel
import OrderPersistence

/// Apple Pay under `/api/v1/apple_pay`, authenticated like the rest of the merchant API.
///
/// Answers that carry decrypted card data (`decrypt`, `payments`) and merchant sessions are `Cache-Control: no-store`.
package struct ApplePayRoutes: Sendable {
    /// In development mode, `"token": "tok_applepay_simulated"` makes `payments` a simulated payment (as the checkout
    /// playground's), so a server's code and the playground's copied curl run before Apple Pay is set up; production
    /// refuses it.
    static let simulatedPaymentToken = "tok_applepay_simulated"

    let applePay: ApplePayService
    /// The simulation of development mode; `nil` in production.
    let playground: CheckoutPlayground?
    let cpu: CPUWorkPool
    let maximumBodySize: Int

    /// Adds the routes to the merchant API group, behind its authentication.
    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        let api = merchantAPI.group("apple_pay")
        api.post("payment-identities") { request, context -> EditedResponse<JSONValue> in
            let body = try await object(request)
            let record = try await applePay.addPaymentIdentity(merchant: context.merchant, body: body)
            return EditedResponse(status: .created, response: Self.json(record))
        }
        api.get("payment-identities") { _, context -> JSONValue in
            ["data": .array(try await applePay.paymentIdentities(merchant: context.merchant).map(Self.json))]
        }
        api.delete("payment-identities/:id") { _, context -> Response in
            try await applePay.deletePaymentIdentity(merchant: context.merchant, id: try RequestParsing.identifier("id", context))
            return Response(status: .noContent)
        }
        api.post("decrypt") { request, context -> Response in
            let body = try await object(request)
            let decrypted = try await applePay.decrypt(merchant: context.merchant, token: try Self.token(body))
            let answer: JSONValue = [
                "transactionId": .string(decrypted.transactionId), "merchantIdentifier": .string(decrypted.merchantIdentifier),
                "version": .string(decrypted.version.rawValue), "paymentData": decrypted.payload.json,
            ]
            return Self.noStore(SerializedJSON(bytes: answer.serialized()).response(from: request, context: context), status: .ok)
        }
        api.post("payments") { request, context -> Response in
            let body = try await object(request)
            if body["token"] == .string(Self.simulatedPaymentToken) {
                guard let playground else {
                    throw APIError.badRequest(
                        "test_token_not_allowed",
                        "\(Self.simulatedPaymentToken) makes a simulated payment in development mode only; send the token Apple Pay gave the page",
                        param: "token")
                }
                let checkout = try await playground.pay(
                    merchant: context.merchant, token: nil, order: try Self.order(body), attempt: try MerchantRoutes.idempotencyKey(request),
                    author: context.author(.applePay))
                return Self.checkoutResponse(checkout, request, context)
            }
            let checkout = try await applePay.checkout(
                merchant: context.merchant, token: try Self.token(body), order: try Self.order(body), author: context.author(.applePay))
            return Self.checkoutResponse(checkout, request, context)
        }
        api.put("merchant-identity") { request, context -> JSONValue in
            _ = try await applePay.putMerchantIdentity(merchant: context.merchant, body: try await object(request))
            return try await merchantIdentityJSON(context)
        }
        api.get("merchant-identity") { _, context -> JSONValue in try await merchantIdentityJSON(context) }
        api.post("sessions") { request, context -> Response in
            try await Self.session(request, context, applePay: applePay, body: try await object(request))
        }
    }

    private func object(_ request: Request) async throws -> JSONValue {
        try await Self.object(request, limit: maximumBodySize, cpu: cpu)
    }

    // MARK: Shared with the checkout playground's calls, which answer exactly as these routes do.

    /// The request's JSON body, which must be an object.
    package static func object(_ request: Request, limit: Int, cpu: CPUWorkPool) async throws -> JSONValue {
        let body = try await RequestParsing.jsonBody(request, limit: limit, on: cpu)
        guard body.objectValue != nil else { throw APIError.badRequest("body_not_object", "the body must be a JSON object") }
        return body
    }

    /// Merchant validation for the body's `validationURL` and `domain`: Apple's session, uncached.
    package static func session(_ request: Request, _ context: MerchantRequestContext, applePay: ApplePayService, body: JSONValue) async throws
        -> Response
    {
        guard let validationURL = body["validationURL"]?.stringValue else {
            throw APIError.badRequest(
                "validation_url_missing", "the body needs validationURL, as the browser's validation event gives it", param: "validationURL")
        }
        guard let domain = body["domain"]?.stringValue else {
            throw APIError.badRequest("domain_missing", "the body needs domain: the domain the payment page is served from", param: "domain")
        }
        let session = try await applePay.session(merchant: context.merchant, validationURL: validationURL, domain: domain)
        return noStore(SerializedJSON(bytes: session).response(from: request, context: context), status: .ok)
    }

    /// The body's `order`: the order content, as POST /api/v1/orders takes it.
    package static func order(_ body: JSONValue) throws -> JSONValue {
        guard let order = body["order"], order.objectValue != nil else {
            throw APIError.badRequest("order_missing", "the body needs order: the order content as POST /api/v1/orders takes it", param: "order")
        }
        return order
    }

    /// A checkout's answer: 201 when it created the order, 200 when it answers a replay; never cached.
    package static func checkoutResponse(_ checkout: ApplePayService.Checkout, _ request: Request, _ context: MerchantRequestContext) -> Response {
        noStore(SerializedJSON(bytes: checkout.body).response(from: request, context: context), status: checkout.created ? .created : .ok)
    }

    package static func token(_ body: JSONValue) throws -> JSONValue {
        guard let token = body["token"], token.objectValue != nil else {
            throw APIError.badRequest(
                "token_missing", "the body needs token: the ApplePayPayment token object (or its paymentData)", param: "token")
        }
        return token
    }

    static func noStore(_ response: Response, status: HTTPResponse.Status) -> Response {
        var response = response
        response.status = status
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private static func json(_ record: PaymentIdentityRecord) -> JSONValue {
        [
            "id": .string(record.id), "merchantIdentifier": .string(record.merchantIdentifier), "publicKeyHash": .string(record.publicKeyHash),
            "notAfter": .string(DateTimeFormat.formatRFC3339(record.notValidAfter)),
            "createdAt": .string(DateTimeFormat.formatRFC3339(record.createdAt)),
        ]
    }

    private func merchantIdentityJSON(_ context: MerchantRequestContext) async throws -> JSONValue {
        let (record, identity) = try await applePay.merchantIdentity(merchant: context.merchant)
        return [
            "merchantIdentifier": .string(record.merchantIdentifier), "displayName": .string(record.displayName),
            "domains": .array(record.domains.map(JSONValue.string)),
            "certificateSubject": .string(String(describing: identity.certificate.subject)),
            "certificateNotValidAfter": .string(DateTimeFormat.formatRFC3339(identity.notValidAfter)),
            "updatedAt": .string(DateTimeFormat.formatRFC3339(record.updatedAt)),
        ]
    }
}
