import Foundation
import Hummingbird
import OrderTrackServer

/// The merchants' dashboard: its pages and their JSON calls under `/dashboard`, the checkout playground, and the
/// redirects that lead a browser there (`/` and `/checkout`). The server adds it among its routes when given it:
/// `OrderTrackApplication.build(configuration:logger:routes: [Dashboard()])`, as `ordertrack serve` and the tests do.
public struct Dashboard: OrderTrackRoutes {
    /// The dashboard, to pass to `OrderTrackApplication.build(configuration:logger:routes:onServerRunning:clock:)`.
    public init() {}

    /// The sign-in form, whose body carries an API key.
    public var secretFormPaths: [String] { [DashboardRoutes.signInPath] }

    /// Loads the dashboard's templates and static files (a missing one fails the start) and adds its routes.
    public func add(to router: Router<OrderTrackRequestContext>, services: OrderTrackServices) throws {
        let configuration = services.configuration
        let clock = services.clock
        // A person who opens the server's address in a browser finds the dashboard.
        router.get("/") { _, _ in Response.redirect(to: "/dashboard", type: .found) }
        DashboardRoutes(
            sessions: DashboardSessions(store: services.store, administration: services.administration, now: { clock.date }),
            orders: services.orders, assets: services.assets, administration: services.administration, orderTypes: services.orderTypes,
            packages: services.packages, applePay: services.applePay, walletLinks: services.walletLinks,
            carriers: CarriersPage(connections: services.carrierConnections, events: services.store),
            webhooks: WebhooksPage(endpoints: services.webhookEndpoints),
            fulfillments: FulfillmentsPage(bulk: BulkUpdates(orders: services.orders)), insights: InsightsPage(store: services.store), clock: clock,
            resources: try WebResources.load("Dashboard", from: .module), cpu: services.cpu, secureCookies: !configuration.isInsecure,
            maximumBodySize: configuration.maximumMerchantBodySize
        ).add(to: router)
    }
}
