import Hummingbird
import NIOCore
import OrderPersistence

/// Who calls the merchant API: one slot for every way a merchant signs in (a secret API key, a dashboard session), so
/// routes and services never see the credential.
package struct MerchantIdentity: Sendable {
    /// How the merchant proved who it is.
    package enum Credential: Sendable {
        /// An API key (`sk_…` or `rk_…`) and what it may do.
        case apiKey(APIKeyGrant)
        /// A dashboard session cookie; pages embed the session's CSRF token in what they send back.
        case dashboardSession(csrfToken: String)
    }

    package var merchant: MerchantRecord
    package var credential: Credential

    package init(merchant: MerchantRecord, credential: Credential) {
        self.merchant = merchant
        self.credential = credential
    }

    /// The API key's grant; `nil` on the dashboard.
    var grant: APIKeyGrant? {
        if case .apiKey(let grant) = credential { return grant }
        return nil
    }
}

/// The context of every OrderTrack request: the router's, plus what the authentication middlewares established.
///
/// Middlewares run in this context and fill one of the optional slots; the routes behind them run in a child context
/// made from it (``MerchantRequestContext``, ``DeviceRequestContext``, ``LookupRequestContext``), where what was
/// authenticated is not optional, so no route checks it again.
public struct OrderTrackRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The merchant calling the merchant API, set by ``MerchantAuthenticationMiddleware`` or
    /// the dashboard's session middleware (`OrderTrackDashboard`).
    package var merchantIdentity: MerchantIdentity?
    /// The order whose `AppleOrder` token a device presented (its own or a wallet link's), set by
    /// ``AppleOrderAuthenticationMiddleware``.
    var deviceAuthorization: DeviceAuthorization?
    /// The lookup key whose App Store Server API token an order lookup presented, set by
    /// ``LookupAuthenticationMiddleware``.
    var lookupKey: LookupKeyRecord?
    /// The client's IP address, for the audit trail and the per-client limits: the TCP peer's, or the one a trusted
    /// proxy names (set by ``ClientAddressMiddleware``).
    var clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
    }
}

/// The context of the routes behind merchant authentication (the API key's or the dashboard session's): the merchant is
/// always there. Made by the router from the parent context once the middleware has authenticated; without a merchant
/// (a route added outside the authenticated group) the request is refused as unauthenticated.
package struct MerchantRequestContext: ChildRequestContext {
    package var coreContext: CoreRequestContextStorage
    /// Who calls, and with which credential.
    package let identity: MerchantIdentity
    /// The client's IP address, as in ``OrderTrackRequestContext/clientAddress``.
    let clientAddress: String?

    package init(context: OrderTrackRequestContext) throws {
        guard let identity = context.merchantIdentity else { throw MerchantAuthenticationMiddleware.missingCredentials }
        coreContext = context.coreContext
        self.identity = identity
        clientAddress = context.clientAddress
    }

    /// The authenticated merchant.
    package var merchant: MerchantRecord { identity.merchant }

    /// The API key's grant; `nil` on the dashboard, whose session may do everything.
    var grant: APIKeyGrant? { identity.grant }

    /// Who changes an order through this request, for the audit trail.
    package func author(_ channel: OrderChangeAuthor.Channel) -> OrderChangeAuthor {
        OrderChangeAuthor(channel: channel, grant: grant, address: clientAddress)
    }
}

/// The context of the Wallet routes behind ``AppleOrderAuthenticationMiddleware``: the order the device authenticated
/// for is always there.
struct DeviceRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    /// What the device authenticated for: the order, and the wallet link whose token it presented, if any.
    let device: DeviceAuthorization

    init(context: OrderTrackRequestContext) throws {
        guard let device = context.deviceAuthorization else { throw AppleOrderAuthenticationMiddleware.unauthorized }
        coreContext = context.coreContext
        self.device = device
    }

    /// The order the device authenticated for.
    var order: OrderRecord { device.order }
}

/// The context of the order lookup behind ``LookupAuthenticationMiddleware``: the key whose token was verified (and
/// admitted by its rate limit) is always there. (Each child context is its own type, like ``DeviceRequestContext``:
/// what a route can read, and the refusal when it is missing, differ.)
struct LookupRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The lookup key the bearer token was signed with: its merchant's orders, answered for its bundle id.
    let key: LookupKeyRecord

    init(context: OrderTrackRequestContext) throws {
        guard let key = context.lookupKey else { throw AppStoreAPIError.unauthorized }
        coreContext = context.coreContext
        self.key = key
    }
}
