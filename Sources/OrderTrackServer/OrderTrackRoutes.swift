import Hummingbird
import OrderPersistence

/// Routes a module above the server adds to its router: the merchants' dashboard (`OrderTrackDashboard`) is one. The
/// server does not depend on them; ``OrderTrackApplication/build(configuration:logger:routes:onServerRunning:clock:)``
/// hands each the services it assembled, after its own routes, so the command line and the tests wire them in one
/// place.
public protocol OrderTrackRoutes: Sendable {
    /// Paths whose `POST` presents a secret in its body (a sign-in form): the failed-authentication rate limit counts
    /// them as it counts an `Authorization` header.
    var secretFormPaths: [String] { get }

    /// Adds the routes to `router`, calling `services`.
    func add(to router: Router<OrderTrackRequestContext>, services: OrderTrackServices) throws
}

/// The services the server assembled, for routes added from outside the module (``OrderTrackRoutes``); they are the
/// package's own, so only its modules read them.
public struct OrderTrackServices: Sendable {
    package let configuration: ServerConfiguration
    package let store: any OrderStore
    package let orders: OrderService
    package let assets: AssetService
    package let administration: Administration
    package let orderTypes: OrderTypeService
    package let packages: PackageService
    package let applePay: ApplePayService
    package let walletLinks: WalletLinkService
    /// The carrier connections `/api/v1/carrier-connections` makes, lists and deletes.
    package let carrierConnections: CarrierConnections
    /// The webhook endpoints `/api/v1/webhook-endpoints` manages.
    package let webhookEndpoints: WebhookEndpoints
    package let cpu: CPUWorkPool
    /// The one clock: dates, waits and intervals.
    package let clock: ServerClock
}
