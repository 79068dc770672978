import Hummingbird
import NIOCore
import OrderPersistence

/// Who calls the merchant API: one slot for every way a merchant signs in (a secret API key, a dashboard session), so
/// routes and services never see the credential.
struct MerchantIdentity: Sendable {
    /// How the merchant proved who it is.
    enum Credential: Sendable {
        /// An API key (`sk_…` or `rk_…`) and what it may do.
        case apiKey(APIKeyGrant)
        /// A dashboard session cookie; pages embed the session's CSRF token in what they send back.
        case dashboardSession(csrfToken: String)
    }

    var merchant: MerchantRecord
    var credential: Credential

    /// The API key's grant; `nil` on the dashboard.
    var grant: APIKeyGrant? {
        if case .apiKey(let grant) = credential { return grant }
        return nil
    }
}

/// The context of every OrderTrack request: the router's, plus the caller the authentication middlewares established.
public struct OrderTrackRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The merchant calling the merchant API, set by ``MerchantAuthenticationMiddleware``.
    var merchantIdentity: MerchantIdentity?
    /// The order whose `AppleOrder` token a device presented (its own or a wallet link's), set by
    /// ``AppleOrderAuthenticationMiddleware``.
    var deviceAuthorization: DeviceAuthorization?
    /// The client's IP address, for the audit trail and the per-client limits: the TCP peer's, or the one a trusted
    /// proxy names (set by ``ClientAddressMiddleware``).
    var clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Who changes an order through this request, for the audit trail.
    func author(_ channel: OrderChangeAuthor.Channel) -> OrderChangeAuthor {
        OrderChangeAuthor(channel: channel, grant: merchantIdentity?.grant, address: clientAddress)
    }

    /// The authenticated merchant; routes behind ``MerchantAuthenticationMiddleware`` always have one.
    var merchant: MerchantRecord {
        get throws {
            guard let merchantIdentity else { throw MerchantAuthenticationMiddleware.missingCredentials }
            return merchantIdentity.merchant
        }
    }

    /// What the device authenticated for; routes behind ``AppleOrderAuthenticationMiddleware`` always have it.
    var device: DeviceAuthorization {
        get throws {
            guard let deviceAuthorization else { throw AppleOrderAuthenticationMiddleware.unauthorized }
            return deviceAuthorization
        }
    }

    /// The order the device authenticated for.
    var order: OrderRecord {
        get throws { try device.order }
    }
}
