import Hummingbird
import OrderModel
import OrderPersistence
import OrderTrackServer

/// The JSON calls of the dashboard's pages, under `/dashboard/api`, authenticated by the session cookie and its CSRF
/// token.
///
/// Why not accept the cookie on `/api/v1`: that API is for servers, authenticated by a secret key that browsers never
/// send by themselves; accepting an ambient cookie there would put every merchant endpoint within reach of cross-site
/// requests and make each need a CSRF check. These few routes call the same services as their `/api/v1` twins
/// (`POST /orders/validate`, `PATCH /orders/{type}/{id}`, `POST /orders/{type}/{id}/wallet-link`, `PUT
/// /order-types/{type}`, `POST /apple_pay/sessions` and `POST /apple_pay/payments`; validating a patch is the PATCH's
/// own validation) and answer the same JSON (less the order's authentication token), so nothing is done twice.
struct DashboardAPIRoutes: Sendable {
    let sessions: DashboardSessions
    let orders: OrderService
    let orderTypes: OrderTypeService
    let playground: CheckoutPlayground
    let walletLinks: WalletLinkService
    let cpu: CPUWorkPool
    /// The merchant API's body limit: the page sends what a merchant's server could.
    let maximumBodySize: Int

    /// An answer about one order with its `ETag`; as on the page, the order leaves out its token: nothing the page's
    /// scripts see reveals it.
    private func pageJSON(_ record: OrderRecord, _ body: @escaping @Sendable (JSONValue) -> JSONValue) async throws -> SerializedJSON {
        try await pageJSON(record, document: nil, body)
    }

    /// As above, with the record's document already parsed (`nil` parses it on the same CPU-pool job).
    private func pageJSON(_ record: OrderRecord, document: JSONValue?, _ body: @escaping @Sendable (JSONValue) -> JSONValue) async throws
        -> SerializedJSON
    {
        let bytes = try await cpu.run {
            body(try (document ?? JSONValue.parse(record.document)).setting("authenticationToken", to: nil)).serialized()
        }
        return SerializedJSON(bytes: bytes, headers: [.eTag: OrderETag.value(version: record.version)])
    }

    func add(to dashboard: RouterGroup<OrderTrackRequestContext>) {
        let api = dashboard.group("api").add(middleware: DashboardAuthenticationMiddleware(sessions: sessions, signedOut: .unauthorized))
            .group(context: MerchantRequestContext.self)
        api.post("orders/validate") { request, context in
            let body = try await RequestParsing.body(request, limit: maximumBodySize)
            return MerchantRoutes.validationJSON(try await orders.validate(merchant: context.merchant, orderJSON: body))
        }
        // The order page's editor omits the authentication token, so it validates its edit as the patch it would send.
        api.post("orders/:orderTypeIdentifier/:orderIdentifier/validate") { request, context in
            let patch = try await RequestParsing.jsonBody(request, limit: maximumBodySize, on: cpu)
            let report = try await orders.validatePatch(
                merchant: context.merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
                id: try RequestParsing.identifier("orderIdentifier", context), patch: patch)
            return MerchantRoutes.validationJSON(report)
        }
        // The order page's current version, for re-applying an edit after a 412 (without the token, as on the page).
        api.get("orders/:orderTypeIdentifier/:orderIdentifier") { _, context in
            let record = try await orders.order(
                merchant: context.merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
                id: try RequestParsing.identifier("orderIdentifier", context))
            return try await pageJSON(record) { ["order": $0, "version": .integer(record.version)] }
        }
        // The editor sends the operator's own changes with If-Match of the version the page showed.
        api.patch("orders/:orderTypeIdentifier/:orderIdentifier") { request, context in
            let allowedVersions = try OrderETag.allowedVersions(request)
            let patch = try await RequestParsing.body(request, limit: maximumBodySize)
            let updated = try await orders.updateOrder(
                merchant: context.merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
                id: try RequestParsing.identifier("orderIdentifier", context), patch: patch, author: context.author(.dashboard),
                allowedVersions: allowedVersions)
            return try await pageJSON(updated.record, document: updated.document) {
                ["order": $0, "changed": .bool(updated.changed), "warnings": .array(updated.warnings.map(\.warningJSON))]
            }
        }
        api.post("orders/:orderTypeIdentifier/:orderIdentifier/wallet-link") { request, context in
            try await ProviderRoutes.createLink(request, context, walletLinks: walletLinks, maximumBodySize: maximumBodySize)
        }
        // The order types page's uploads: the merchant API's body fields, read and checked by the same service. A new
        // certificate keeps the APNs key the order type pushes with. The two routes stay two: each reads a different
        // credential and keeps the other one.
        api.put("order-types/:orderTypeIdentifier") { request, context in
            let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize, on: cpu)
            try await orderTypes.replaceIdentity(
                merchant: context.merchant, orderTypeIdentifier: try RequestParsing.identifier("orderTypeIdentifier", context),
                identity: try OrderTypeService.identity(from: body))
            return ["uploaded": true] as JSONValue
        }
        api.put("order-types/:orderTypeIdentifier/apns-key") { request, context in
            let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize, on: cpu)
            try await orderTypes.setAPNsKey(
                merchant: context.merchant, orderTypeIdentifier: try RequestParsing.identifier("orderTypeIdentifier", context),
                key: try OrderTypeService.apnsKey(from: body))
            return ["uploaded": true] as JSONValue
        }
        api.post("checkout/session") { request, context in
            let body = try await ApplePayRoutes.object(request, limit: maximumBodySize, cpu: cpu)
            return try await ApplePayRoutes.session(request, context, applePay: playground.applePay, body: body)
        }
        // `{token, order}` as `POST /api/v1/apple_pay/payments` takes it; without a token, a simulated payment.
        api.post("checkout/payments") { request, context in
            let body = try await ApplePayRoutes.object(request, limit: maximumBodySize, cpu: cpu)
            // No token, or null: a simulation. (Not `nil` literals: JSONValue's reads as `.null`.)
            let token: JSONValue? = if let given = body["token"], given != .null { try ApplePayRoutes.token(body) } else { .none }
            let checkout = try await playground.pay(
                merchant: context.merchant, token: token, order: try ApplePayRoutes.order(body),
                attempt: try MerchantRoutes.idempotencyKey(request), author: context.author(.dashboard))
            return ApplePayRoutes.checkoutResponse(checkout, request, context)
        }
    }
}
