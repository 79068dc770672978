import HTTPTypes

/// What a restricted API key may do. A secret key has every scope; a restricted key has those it was created with.
/// A `…:write` scope includes the `…:read` scope of the same resource.
enum APIScope: String, Sendable, CaseIterable, Comparable {
    case ordersRead = "orders:read"
    case ordersWrite = "orders:write"
    /// An order's device `authenticationToken`, which lets its holder fetch the order and register devices for ever:
    /// left out of every answer to a key without it (``MerchantRoutes/orderJSON(_:_:)``), and needed for the package.
    case orderTokensRead = "order-tokens:read"
    /// `PATCH` of an order that changes only the tracking fields of existing fulfillments (``FulfillmentPatchRule``).
    case fulfillmentsWrite = "fulfillments:write"
    case ordersNotify = "orders:notify"
    case walletLinksWrite = "wallet-links:write"
    case assetsRead = "assets:read"
    case assetsWrite = "assets:write"
    case orderTypesRead = "order-types:read"
    case orderTypesWrite = "order-types:write"
    case orderDefaultsRead = "order-defaults:read"
    case orderDefaultsWrite = "order-defaults:write"
    /// Merchant validation, payments and token decryption.
    case applePayPayments = "apple-pay:payments"
    /// Payment-processing and Merchant Identity certificates.
    case applePayIdentities = "apple-pay:identities"
    case lookupKeysRead = "lookup-keys:read"
    case lookupKeysWrite = "lookup-keys:write"
    case carrierConnectionsRead = "carrier-connections:read"
    case carrierConnectionsWrite = "carrier-connections:write"
    /// The merchant's event log (`/api/v1/events`).
    case eventsRead = "events:read"
    /// Webhook endpoints and their delivery log.
    case webhooksRead = "webhooks:read"
    /// Making, deleting, rotating and enabling webhook endpoints, and resending deliveries.
    case webhooksWrite = "webhooks:write"
    /// The merchant's insights (`/api/v1/insights`).
    case insightsRead = "insights:read"
    /// Managing API keys: only secret keys hold it, so no key can make a key more powerful than itself.
    case apiKeysWrite = "api-keys:write"

    /// The scopes a restricted key can be given.
    static let grantable = allCases.filter { $0 != .apiKeysWrite }

    /// Shorthands accepted when a key is created, expanded to the scopes they stand for.
    static let shorthands: [String: [APIScope]] = ["apple-pay:*": [.applePayPayments, .applePayIdentities]]

    /// Whether holding `self` grants `scope`: itself, and a write scope its resource's read scope.
    func grants(_ scope: APIScope) -> Bool {
        guard self != scope else { return true }
        guard rawValue.hasSuffix(":write"), scope.rawValue.hasSuffix(":read") else { return false }
        return rawValue.dropLast(":write".count) == scope.rawValue.dropLast(":read".count)
    }

    static func < (lhs: APIScope, rhs: APIScope) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The scope each merchant API operation needs: the one table that authorization reads
/// (``MerchantAuthenticationMiddleware``) and that the OpenAPI document must agree with (a test walks both).
enum RouteScopes {
    /// What a route needs: any one of `anyOf`, and every one of `allOf`; with `ownKey`, also the key the path names
    /// (`{id}`) itself.
    struct Rule: Sendable, Equatable {
        var anyOf: [APIScope]
        var allOf: [APIScope] = []
        var ownKey = false

        func admits(_ grant: APIKeyGrant) -> Bool { anyOf.contains(where: grant.has) && allOf.allSatisfy(grant.has) }

        /// What a key lacking the rule must get: the `anyOf` alternatives, or the first `allOf` scope it lacks.
        func missing(for grant: APIKeyGrant) -> [APIScope] {
            anyOf.contains(where: grant.has) ? allOf.filter { !grant.has($0) } : anyOf
        }
    }

    /// Keyed by method and the router's path pattern (`PATCH /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}`).
    static let table: [String: Rule] = [
        "POST /api/v1/orders": Rule(anyOf: [.ordersWrite]),
        "GET /api/v1/orders": Rule(anyOf: [.ordersRead]),
        "POST /api/v1/orders/validate": Rule(anyOf: [.ordersRead]),
        // Each line is a PATCH, judged as one: a fulfillments-only key changes only tracking fields.
        "POST /api/v1/orders/bulk": Rule(anyOf: [.ordersWrite, .fulfillmentsWrite]),
        "GET /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}": Rule(anyOf: [.ordersRead]),
        "PATCH /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}": Rule(anyOf: [.ordersWrite, .fulfillmentsWrite]),
        "POST /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}/rotate-token": Rule(anyOf: [.ordersWrite]),
        "POST /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}/notify": Rule(anyOf: [.ordersNotify]),
        "GET /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}/pushes": Rule(anyOf: [.ordersRead]),
        "GET /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}/history": Rule(anyOf: [.ordersRead]),
        // The package's order.json carries the device token.
        "GET /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}/package": Rule(anyOf: [.ordersRead], allOf: [.orderTokensRead]),
        // A link shows the whole order to whoever opens it: making one is reading the order.
        "POST /api/v1/orders/{orderTypeIdentifier}/{orderIdentifier}/wallet-link": Rule(anyOf: [.walletLinksWrite], allOf: [.ordersRead]),
        "DELETE /api/v1/wallet-links/{id}": Rule(anyOf: [.walletLinksWrite]),
        "POST /api/v1/apple_pay/order_tracking/notify": Rule(anyOf: [.ordersNotify]),
        "GET /api/v1/assets": Rule(anyOf: [.assetsRead]),
        "GET /api/v1/assets/**": Rule(anyOf: [.assetsRead]),
        "PUT /api/v1/assets/**": Rule(anyOf: [.assetsWrite]),
        "DELETE /api/v1/assets/**": Rule(anyOf: [.assetsWrite]),
        "GET /api/v1/order-types": Rule(anyOf: [.orderTypesRead]),
        "PUT /api/v1/order-types/{orderTypeIdentifier}": Rule(anyOf: [.orderTypesWrite]),
        "PUT /api/v1/order-types/{orderTypeIdentifier}/default": Rule(anyOf: [.orderTypesWrite]),
        "GET /api/v1/order-defaults": Rule(anyOf: [.orderDefaultsRead]),
        "PUT /api/v1/order-defaults": Rule(anyOf: [.orderDefaultsWrite]),
        "GET /api/v1/order-types/{orderTypeIdentifier}/order-defaults": Rule(anyOf: [.orderDefaultsRead]),
        "PUT /api/v1/order-types/{orderTypeIdentifier}/order-defaults": Rule(anyOf: [.orderDefaultsWrite]),
        "POST /api/v1/apple_pay/sessions": Rule(anyOf: [.applePayPayments]),
        "POST /api/v1/apple_pay/payments": Rule(anyOf: [.applePayPayments]),
        "POST /api/v1/apple_pay/decrypt": Rule(anyOf: [.applePayPayments]),
        "POST /api/v1/apple_pay/payment-identities": Rule(anyOf: [.applePayIdentities]),
        "GET /api/v1/apple_pay/payment-identities": Rule(anyOf: [.applePayIdentities]),
        "DELETE /api/v1/apple_pay/payment-identities/{id}": Rule(anyOf: [.applePayIdentities]),
        "PUT /api/v1/apple_pay/merchant-identity": Rule(anyOf: [.applePayIdentities]),
        "GET /api/v1/apple_pay/merchant-identity": Rule(anyOf: [.applePayIdentities]),
        "POST /api/v1/lookup-keys": Rule(anyOf: [.lookupKeysWrite]),
        "GET /api/v1/lookup-keys": Rule(anyOf: [.lookupKeysRead]),
        "GET /api/v1/lookup-keys/root-certificate": Rule(anyOf: [.lookupKeysRead]),
        "DELETE /api/v1/lookup-keys/{keyId}": Rule(anyOf: [.lookupKeysWrite]),
        "POST /api/v1/carrier-connections": Rule(anyOf: [.carrierConnectionsWrite]),
        "GET /api/v1/carrier-connections": Rule(anyOf: [.carrierConnectionsRead]),
        "DELETE /api/v1/carrier-connections/{id}": Rule(anyOf: [.carrierConnectionsWrite]),
        "GET /api/v1/events": Rule(anyOf: [.eventsRead]),
        "GET /api/v1/events/{id}": Rule(anyOf: [.eventsRead]),
        "POST /api/v1/webhook-endpoints": Rule(anyOf: [.webhooksWrite]),
        "GET /api/v1/webhook-endpoints": Rule(anyOf: [.webhooksRead]),
        "GET /api/v1/webhook-endpoints/{id}": Rule(anyOf: [.webhooksRead]),
        "DELETE /api/v1/webhook-endpoints/{id}": Rule(anyOf: [.webhooksWrite]),
        "POST /api/v1/webhook-endpoints/{id}/rotate-secret": Rule(anyOf: [.webhooksWrite]),
        "POST /api/v1/webhook-endpoints/{id}/enable": Rule(anyOf: [.webhooksWrite]),
        "GET /api/v1/webhook-endpoints/{id}/deliveries": Rule(anyOf: [.webhooksRead]),
        "POST /api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend": Rule(anyOf: [.webhooksWrite]),
        "GET /api/v1/insights": Rule(anyOf: [.insightsRead]),
        "POST /api/v1/api-keys": Rule(anyOf: [.apiKeysWrite]),
        "GET /api/v1/api-keys": Rule(anyOf: [.apiKeysWrite]),
        "DELETE /api/v1/api-keys/{id}": Rule(anyOf: [.apiKeysWrite]),
        "POST /api/v1/api-keys/{id}/rotate": Rule(anyOf: [.apiKeysWrite], ownKey: true),
    ]

    /// The rule of a request's route; `HEAD` is `GET`'s. `nil` for a route the table lacks, which restricted keys may
    /// not call.
    static func rule(method: HTTPRequest.Method, endpointPath: String) -> Rule? {
        table["\(method == .head ? "GET" : method.rawValue) \(endpointPath)"]
    }
}
