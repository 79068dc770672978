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

/// Authenticates a device call for the order its path names (`:orderTypeIdentifier/:orderIdentifier`) by the order's
/// `Authorization: AppleOrder <token>`. Unknown orders and wrong tokens both answer 401, so the endpoint never reveals
/// which orders exist.
struct AppleOrderAuthenticationMiddleware: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    static let unauthorized = APIError.unauthorized("missing or wrong AppleOrder authorization")

    let lookup: OrderLookup

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let orderType = try RequestParsing.identifier("orderTypeIdentifier", context)
        let orderIdentifier = try RequestParsing.identifier("orderIdentifier", context)
        guard case .appleOrder(let token) = request.headers[.authorization].flatMap(AuthorizationCredentials.parse) else { throw Self.unauthorized }
        guard let record = try await lookup.order(type: orderType, id: orderIdentifier) else {
            _ = Secrets.constantTimeEquals(token, token)
            throw Self.unauthorized
        }
        guard Secrets.constantTimeEquals(token, record.authenticationToken) else { throw Self.unauthorized }
        var context = context
        context.authenticatedOrder = record
        return try await next(request, context)
    }
}
