import Hummingbird
import OrderPersistence
import RequestSyntax

/// Authenticates merchant API calls by secret API key (`Authorization: Bearer sk_…`, or HTTP Basic with the key as user
/// name) and puts the merchant in the context; anything else is answered 401.
struct MerchantAuthenticationMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static let missingCredentials = APIError.unauthorized("authenticate with your secret API key: Authorization: Bearer sk_… (or curl -u sk_…:)")

    let administration: Administration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let key: String
        switch request.headers[.authorization].flatMap(AuthorizationCredentials.parse) {
        case .bearer(let token): key = token
        case .basic(let user, _): key = user
        case .appleOrder, nil: throw Self.missingCredentials
        }
        guard key.hasPrefix("sk_"), let merchant = try await administration.merchant(forAPIKey: key) else {
            throw APIError.unauthorized("the API key is not valid")
        }
        var context = context
        context.merchantIdentity = MerchantIdentity(merchant: merchant, credential: .apiKey)
        return try await next(request, context)
    }
}

/// Authenticates a device call by the order's `Authorization: AppleOrder <token>` and puts the order in the context.
///
/// Apple's paths name the order (`:orderTypeIdentifier/:orderIdentifier`), and the token must be that order's; unknown
/// orders and wrong tokens both answer 401, so the endpoint never reveals which orders exist. The payment providers'
/// `POST /v1/push` names no order: there the order is the one the token belongs to, and a token that several orders
/// share (merchants may choose their own) is refused with 409 rather than guessed.
struct AppleOrderAuthenticationMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static let unauthorized = APIError.unauthorized("missing or wrong AppleOrder authorization")

    let lookup: OrderLookup

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard case .appleOrder(let token) = request.headers[.authorization].flatMap(AuthorizationCredentials.parse) else { throw Self.unauthorized }
        var context = context
        context.authenticatedOrder = try await order(token: token, context)
        return try await next(request, context)
    }

    private func order(token: String, _ context: Context) async throws -> OrderRecord {
        guard context.parameters.get("orderTypeIdentifier") != nil else {
            let orders = try await lookup.orders(authenticationToken: token)
            guard orders.count < 2 else {
                throw OrderTrackError(
                    .ambiguousAuthenticationToken, "several orders share this authentication token; give each order its own token")
            }
            guard let record = orders.first else { throw Self.unauthorized }
            return record
        }
        let orderType = try RequestParsing.identifier("orderTypeIdentifier", context)
        let orderIdentifier = try RequestParsing.identifier("orderIdentifier", context)
        guard let record = try await lookup.order(type: orderType, id: orderIdentifier) else {
            _ = Secrets.constantTimeEquals(token, token)
            throw Self.unauthorized
        }
        guard Secrets.constantTimeEquals(token, record.authenticationToken) else { throw Self.unauthorized }
        return record
    }
}
