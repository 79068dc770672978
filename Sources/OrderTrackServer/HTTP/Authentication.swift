import Foundation
import Hummingbird
import OrderModel
import OrderPersistence
import RequestSyntax

/// Authenticates merchant API calls by API key (`Authorization: Bearer sk_…` or `rk_…`, or HTTP Basic with the key as
/// user name) and authorizes them: the one place that enforces a key's scopes (``RouteScopes``) and its order types (the
/// `{orderTypeIdentifier}` of the path, the `orderTypeIdentifier` filter of a list). An unknown, revoked or expired key
/// is 401; a known key outside its scope is 403 naming what is missing. Notes the key's use (``APIKeyUseRecorder``).
struct MerchantAuthenticationMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static let missingCredentials = APIError.unauthorized("authenticate with your API key: Authorization: Bearer sk_… (or curl -u sk_…:)")
    let administration: Administration
    let uses: APIKeyUseRecorder
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let secret: String
        switch request.headers[.authorization].flatMap(AuthorizationCredentials.parse) {
        case .bearer(let token): secret = token
        case .basic(let user, _): secret = user
        case .appleOrder, nil: throw Self.missingCredentials
        }
        guard secret.hasPrefix("sk_") || secret.hasPrefix("rk_"), let found = try await administration.apiKey(secret: secret) else {
            if let rotated = try await administration.rotatedAPIKey(secret: secret) {
                throw APIError.unauthorized(
                    "this secret of API key \(rotated.keyID) was rotated on \(DateTimeFormat.formatRFC3339(rotated.rotatedAt)); "
                        + "use the new secret the rotation returned")
            }
            throw APIError.unauthorized("the API key is not valid")
        }
        let (key, merchant) = found
        let date = now()
        if let revoked = key.revokedAt {
            throw APIError.unauthorized("API key \(key.id) was revoked at \(DateTimeFormat.formatRFC3339(revoked))")
        }
        if let expires = key.expiresAt, expires <= date {
            throw APIError.unauthorized("API key \(key.id) expired at \(DateTimeFormat.formatRFC3339(expires))")
        }
        let grant = APIKeyGrant(key)
        try authorize(request, context, grant)
        uses.used(key, at: date)
        var context = context
        context.merchantIdentity = MerchantIdentity(merchant: merchant, credential: .apiKey(grant))
        return try await next(request, context)
    }

    /// The route's scope, then the order type the request names, if the key is limited to some.
    private func authorize(_ request: Request, _ context: Context, _ grant: APIKeyGrant) throws {
        guard grant.scopes != nil || grant.orderTypes != nil else { return }
        let path = context.endpointPath ?? request.uri.path
        let operation = "\(request.method) \(path)"
        guard let rule = RouteScopes.rule(method: request.method, endpointPath: path) else {
            throw APIError.scopeMissing([.apiKeysWrite], operation: operation, keyID: grant.keyID)
        }
        let ownKey = rule.ownKey && context.parameters.get("id") == grant.keyID
        guard ownKey || rule.admits(grant) else {
            throw APIError.scopeMissing(rule.missing(for: grant), operation: operation, keyID: grant.keyID)
        }
        if let orderType = context.parameters.get("orderTypeIdentifier") ?? request.uri.queryParameters["orderTypeIdentifier"].map(String.init) {
            try grant.requireOrderType(orderType)
        } else if let orderTypes = grant.orderTypes, request.method == .get, path == "/api/v1/orders" {
            // The list filters by one order type: a key limited to several must say which.
            throw OrderTrackError(
                .orderTypeNotAllowed,
                "API key \(grant.keyID) is limited to order types \(orderTypes.sorted().joined(separator: ", ")): list them with ?orderTypeIdentifier=",
                field: "orderTypeIdentifier")
        }
    }
}

/// Authenticates a device call by `Authorization: AppleOrder <token>` and puts the order in the context.
///
/// The token is the order's own authenticationToken or the device token of a live Track in Wallet link to the order
/// (``WalletLinkService/liveLink(deviceToken:)``); the context says which, so a fetch answers with the package carrying
/// that same token and a registration goes with the link. A revoked or expired link's token is a wrong token.
///
/// Apple's paths name the order (`:orderTypeIdentifier/:orderIdentifier`), and the token must be that order's; unknown
/// orders and wrong tokens both answer 401, so the endpoint never reveals which orders exist. The payment providers'
/// `POST /v1/push` names no order: there the order is the one the token belongs to, and a token that several orders
/// share (merchants may choose their own) is refused with 409 rather than guessed.
struct AppleOrderAuthenticationMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static let unauthorized = APIError.unauthorized("missing or wrong AppleOrder authorization")

    let records: OrderRecordCache
    let walletLinks: WalletLinkService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard case .appleOrder(let token) = request.headers[.authorization].flatMap(AuthorizationCredentials.parse) else { throw Self.unauthorized }
        var context = context
        context.deviceAuthorization = try await authorization(token: token, context)
        return try await next(request, context)
    }

    private func authorization(token: String, _ context: Context) async throws -> DeviceAuthorization {
        guard context.parameters.get("orderTypeIdentifier") != nil else {
            let orders = try await records.orders(authenticationToken: token)
            guard orders.count < 2 else {
                throw OrderTrackError(
                    .ambiguousAuthenticationToken, "several orders share this authentication token; give each order its own token")
            }
            guard let record = orders.first else { return try await linked(token: token, named: nil) }
            return DeviceAuthorization(order: record)
        }
        let orderType = try RequestParsing.identifier("orderTypeIdentifier", context)
        let orderIdentifier = try RequestParsing.identifier("orderIdentifier", context)
        guard let record = try await records.order(type: orderType, id: orderIdentifier) else {
            _ = Secrets.constantTimeEquals(token, token)
            throw Self.unauthorized
        }
        guard Secrets.constantTimeEquals(token, record.authenticationToken) else { return try await linked(token: token, named: record) }
        return DeviceAuthorization(order: record)
    }

    /// The order a live wallet link's device token opens: the one the path names (`named`), which must be the link's,
    /// or without one the link's.
    private func linked(token: String, named: OrderRecord?) async throws -> DeviceAuthorization {
        guard let link = try await walletLinks.liveLink(deviceToken: token) else { throw Self.unauthorized }
        let key = link.order
        var record = named
        if record == nil { record = try await records.order(type: key.orderTypeIdentifier, id: key.orderIdentifier) }
        guard let record, record.orderTypeIdentifier == key.orderTypeIdentifier, record.orderIdentifier == key.orderIdentifier else {
            throw Self.unauthorized
        }
        return DeviceAuthorization(order: record, link: WalletLinkDevice(linkID: link.id, token: token))
    }
}

/// Authenticates an order lookup by its App Store Server API token (`Authorization: Bearer <JWT>`, checked as Apple
/// documents by ``TransactionLookupService/authenticate(bearer:)``), counts it against the key's rate limit and puts the
/// key in the context. Its refusals are Apple's (``AppStoreAPIError``): 401 without a body for any problem with the
/// token, 429 with `Retry-After` past the limit.
struct LookupAuthenticationMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    let lookup: TransactionLookupService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard case .bearer(let token) = request.headers[.authorization].flatMap(AuthorizationCredentials.parse) else {
            throw AppStoreAPIError.unauthorized
        }
        let key = try await lookup.authenticate(bearer: token)
        try lookup.admit(key)
        var context = context
        context.lookupKey = key
        return try await next(request, context)
    }
}
