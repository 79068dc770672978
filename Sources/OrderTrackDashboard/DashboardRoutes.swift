import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OrderModel
import OrderPersistence
import OrderTrackServer

/// The dashboard's pages under `/dashboard`: sign-in and sign-out, the orders list, the order page, the order types and
/// carriers pages, the checkout playground, and their static files. Pages are rendered on the server from the
/// services' answers; the session middleware authenticates.
struct DashboardRoutes: Sendable {
    static let signInPath = "/dashboard/sign-in"
    static let pageSize = 25
    /// Lines the order page's transcript shows, newest first.
    static let transcriptLength = 100

    let sessions: DashboardSessions
    let orders: OrderService
    let assets: AssetService
    let administration: Administration
    /// Checks and stores uploaded order type credentials, as the merchant API does.
    let orderTypes: OrderTypeService
    /// Loads order types' signing identities (parsed once, shared with package building).
    let packages: PackageService
    /// Apple Pay for the checkout playground, the service `/api/v1/apple_pay` calls.
    let applePay: ApplePayService
    /// Makes the "Track in Wallet" links the checkout playground offers after a payment.
    let walletLinks: WalletLinkService
    /// The Carriers page: connections through the merchant API's service, and the recent carrier events.
    let carriers: CarriersPage
    /// The Webhooks page: endpoints through the merchant API's service, and their recent deliveries.
    let webhooks: WebhooksPage
    /// The fulfillment updates page: a CSV through the bulk API's update path.
    let fulfillments: FulfillmentsPage
    /// The Insights page: the merchant's roll-ups as charts, a table and a CSV download.
    let insights: InsightsPage
    let clock: ServerClock
    let resources: WebResources
    let cpu: CPUWorkPool
    /// Whether the cookie is `Secure`: when the public URL is https, so that it never travels in clear.
    let secureCookies: Bool
    /// The limit of the pages' JSON bodies (order documents), the merchant API's.
    let maximumBodySize: Int

    func add(to router: Router<OrderTrackRequestContext>) {
        // The playground's short address; its page lives under /dashboard, where the session cookie is sent.
        router.get("checkout") { _, _ in Response.redirect(to: Self.checkoutPath, type: .normal) }
        let dashboard = router.group("dashboard").add(middleware: PageSecurityHeaders())
        dashboard.get("static/:file") { request, context in
            guard let name = context.parameters.get("file"), let response = resources.staticFile(name, request: request) else {
                throw APIError.notFound("no such dashboard file")
            }
            return response
        }
        dashboard.get("sign-in") { request, _ in
            resources.page("sign-in", ["title": "Sign in", "next": Self.returnPath(request.uri.queryParameters["next"].map(String.init)) ?? false])
        }
        dashboard.post("sign-in") { request, _ in try await signIn(request) }

        let pages = dashboard.group().add(middleware: DashboardErrorPages(resources: resources))
            .add(middleware: DashboardAuthenticationMiddleware(sessions: sessions, signedOut: .redirectToSignIn))
            .group(context: MerchantRequestContext.self)
        pages.get { request, context in try await ordersPage(request, context) }
        pages.get("events") { request, context in try await DashboardEvents(orders: orders, clock: clock).response(request, context) }
        pages.get("order-types") { request, context in try await orderTypesPage(request, context) }
        pages.get("orders/:orderTypeIdentifier/:orderIdentifier") { request, context in try await orderPage(request, context) }
        pages.get("carriers") { request, context in try await carriersPage(request, context) }
        // A form post, then a redirect to the page announcing the connection; a refusal is the page again, as posted.
        pages.post("carriers") { request, context in
            var request = request
            let form = DashboardForm(String(buffer: try await request.collectBody(upTo: DashboardAuthenticationMiddleware.maximumFormSize)))
            switch try await carriers.connect(merchantID: context.merchant.id, form: form) {
            case .made(let record):
                return Response.redirect(to: "\(CarriersPage.path)?connected=\(Self.queryComponent(record.id))", type: .normal)
            case .refused(let entry):
                return try await carriersPage(request, context, entry: entry, status: .badRequest)
            }
        }
        pages.post("carriers/:id/delete") { _, context in
            let id = try RequestParsing.identifier("id", context)
            try await carriers.connections.delete(merchantID: context.merchant.id, id: id)
            return Response.redirect(to: "\(CarriersPage.path)?deleted=\(Self.queryComponent(id))", type: .normal)
        }
        pages.get("webhooks") { _, context in try await webhooksPage(context, notice: nil) }
        // Forms answer the page itself: a new secret must be shown once, so it never travels in a redirect's URL. The
        // page's script then gives the answer the page's own address, so that a reload does not post the form again.
        pages.post("webhooks") { request, context in
            var request = request
            let form = DashboardForm(String(buffer: try await request.collectBody(upTo: DashboardAuthenticationMiddleware.maximumFormSize)))
            let notice = try await webhooks.add(merchantID: context.merchant.id, form: form)
            return try await webhooksPage(context, notice: notice, status: notice.isError ? .badRequest : .ok)
        }
        pages.post("webhooks/:id/:action") { _, context in
            let id = try RequestParsing.identifier("id", context)
            let merchantID = context.merchant.id
            let notice: WebhooksPage.Notice
            switch context.parameters.get("action") {
            case "delete":
                try await webhooks.endpoints.delete(merchantID: merchantID, id: id)
                notice = WebhooksPage.Notice(message: "Endpoint \(id) deleted.")
            case "rotate-secret":
                let rotated = try await webhooks.endpoints.rotateSecret(merchantID: merchantID, id: id)
                notice = WebhooksPage.Notice(
                    message: "New secret for \(id), shown only now; the old one keeps signing beside it for 24 hours:", secret: rotated.secret)
            case "enable":
                _ = try await webhooks.endpoints.enable(merchantID: merchantID, id: id)
                notice = WebhooksPage.Notice(message: "Endpoint \(id) enabled: the event it stopped at is sent again now.")
            default:
                throw APIError.notFound("no such webhook action")
            }
            return try await webhooksPage(context, notice: notice)
        }
        pages.post("webhooks/:id/deliveries/:deliveryId/resend") { _, context in
            let id = try RequestParsing.identifier("id", context)
            let delivery = try await webhooks.endpoints.resend(
                merchantID: context.merchant.id, id: id, deliveryID: try RequestParsing.identifier("deliveryId", context))
            let outcome = delivery.error.map { "failed: \($0)" } ?? "delivered (\(delivery.responseStatus ?? 0))"
            return try await webhooksPage(context, notice: WebhooksPage.Notice(message: "Resent \(delivery.eventID): \(outcome)."))
        }
        pages.get("insights") { request, context in
            var values = try layoutValues(context, title: "Insights")
            values.merge(
                try await insights.values(
                    merchantID: context.merchant.id, range: request.uri.queryParameters["range"].map(String.init), now: clock.date)
            ) { $1 }
            return resources.page("insights", values)
        }
        pages.get("insights.csv") { request, context in
            let (_, report) = try await insights.report(
                merchantID: context.merchant.id, range: request.uri.queryParameters["range"].map(String.init), now: clock.date)
            return InsightRoutes.csvDownload(report)
        }
        pages.get("fulfillments") { _, context in
            var values = try layoutValues(context, title: "Update fulfillments")
            values.merge(fulfillments.values()) { $1 }
            return resources.page("fulfillments", values)
        }
        // A file's text is larger than the other forms: this route reads its CSRF token within a larger limit.
        dashboard.group().add(middleware: DashboardErrorPages(resources: resources))
            .add(
                middleware: DashboardAuthenticationMiddleware(
                    sessions: sessions, signedOut: .redirectToSignIn, formLimit: FulfillmentsPage.maximumFormSize)
            )
            .group(context: MerchantRequestContext.self)
            .post("fulfillments") { request, context in
                var request = request
                let form = DashboardForm(String(buffer: try await request.collectBody(upTo: FulfillmentsPage.maximumFormSize)))
                var values = try layoutValues(context, title: "Update fulfillments")
                let applied = try await fulfillments.apply(form: form, merchant: context.merchant, author: context.author(.dashboard))
                values.merge(applied.values) { $1 }
                return resources.page("fulfillments", values, status: applied.failed ? .badRequest : .ok)
            }
        pages.get("checkout") { _, context in
            var values = try layoutValues(context, title: "Checkout playground")
            let page = CheckoutPage(administration: administration, applePay: applePay)
            // A fresh number for each visit, so that the orders made in one session are told apart in the list.
            values.merge(
                try await page.values(
                    merchant: context.merchant, orderNumber: "PG-" + String(format: "%08X", UInt32.random(in: .min ... .max)), now: clock.date)
            ) { $1 }
            values["script"] = "checkout-page.js"
            return resources.page("checkout", values)
        }
        pages.get("orders/:orderTypeIdentifier/:orderIdentifier/package") { _, context in
            let (type, id) = try orderPath(context)
            let (record, package) = try await orders.package(merchant: context.merchant, type: type, id: id)
            return MerchantRoutes.packageDownload(record, package)
        }
        pages.get("assets/:name") { _, context in
            let asset = try await assets.asset(merchant: context.merchant, name: try RequestParsing.identifier("name", context))
            guard asset.info.contentType.hasPrefix("image/") else { throw APIError.notFound("no image named \(asset.info.name)") }
            return Response(
                status: .ok, headers: [.contentType: asset.info.contentType, .cacheControl: "private, max-age=300"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
        }
        pages.post("orders/:orderTypeIdentifier/:orderIdentifier/notify") { _, context in
            let (type, id) = try orderPath(context)
            let devices = try await orders.notifyDevices(merchant: context.merchant, type: type, id: id)
            return Response.redirect(to: "\(Self.orderURL(type: type, id: id))?notified=\(devices)", type: .normal)
        }
        pages.post("sign-out") { request, _ in
            if let id = request.cookies[DashboardSessions.cookieName]?.value { try await sessions.signOut(id: id) }
            var response = Response.redirect(to: Self.signInPath, type: .normal)
            response.setCookie(sessionCookie(value: "", maxAge: 0))
            return response
        }
        // After a leak: every session of the merchant ends, on every device and instance, this one included.
        pages.post("sign-out-everywhere") { _, context in
            _ = try await sessions.signOutEverywhere(merchantID: context.merchant.id)
            var response = Response.redirect(to: Self.signInPath, type: .normal)
            response.setCookie(sessionCookie(value: "", maxAge: 0))
            return response
        }
        DashboardAPIRoutes(
            sessions: sessions, orders: orders, orderTypes: orderTypes, playground: CheckoutPlayground(orders: orders, applePay: applePay),
            walletLinks: walletLinks, cpu: cpu, maximumBodySize: maximumBodySize
        ).add(to: dashboard)
    }

    // MARK: Sign-in

    func signIn(_ request: Request) async throws -> Response {
        // A sign-in posted from another site would sign the browser in as the attacker's merchant.
        if let origin = request.headers[.origin], let authority = request.head.authority, URL(string: origin)?.hostAndPort != authority {
            return resources.page("sign-in", ["title": "Sign in", "error": "Sign in from this server's own page."], status: .forbidden)
        }
        var request = request
        let form = DashboardForm(String(buffer: try await request.collectBody(upTo: DashboardAuthenticationMiddleware.maximumFormSize)))
        guard let (sessionID, lifetime) = try await sessions.signIn(apiKey: form["api_key"] ?? "") else {
            return resources.page(
                "sign-in",
                [
                    "title": "Sign in", "error": try await sessions.refusal(apiKey: form["api_key"] ?? ""),
                    "next": Self.returnPath(form["next"]) ?? false,
                ],
                status: .unauthorized)
        }
        var response = Response.redirect(to: Self.returnPath(form["next"]) ?? "/dashboard", type: .normal)
        // Never longer than the session (and so the key) lasts.
        response.setCookie(sessionCookie(value: sessionID, maxAge: Int(lifetime.rounded(.down))))
        return response
    }

    static let checkoutPath = "/dashboard/checkout"

    /// The sign-in form's address for a browser sent there from `path`, which it returns to once signed in.
    static func signInURL(returningTo path: String) -> String {
        guard path != "/dashboard", returnPath(path) != nil else { return signInPath }
        return "\(signInPath)?next=\(queryComponent(path))"
    }

    /// `path` if sign-in may send the browser there: a dashboard page of this server, never another site (an open
    /// redirect would lend the sign-in form's trust to any address).
    static func returnPath(_ path: String?) -> String? {
        guard let path, path == "/dashboard" || path.hasPrefix("/dashboard/"), path != signInPath, !path.contains("//"), !path.contains("\\"),
            path.utf8.count <= 512, let components = URLComponents(string: path), components.host == nil, components.scheme == nil
        else { return nil }
        return path
    }

    /// The session cookie: script cannot read it, other sites' requests never carry it, only `/dashboard` receives it.
    func sessionCookie(value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: DashboardSessions.cookieName, value: value, maxAge: maxAge, path: "/dashboard", secure: secureCookies, httpOnly: true,
            sameSite: .strict)
    }

    // MARK: Pages

    func layoutValues(_ context: MerchantRequestContext, title: String) throws -> [String: Any] {
        guard case .dashboardSession(let csrfToken) = context.identity.credential else {
            throw APIError.unauthorized("sign in to the dashboard")
        }
        return ["title": title, "merchantName": context.merchant.name, "csrfToken": csrfToken]
    }

    func ordersPage(_ request: Request, _ context: MerchantRequestContext) async throws -> Response {
        let merchant = context.merchant
        let query = request.uri.queryParameters
        let search = query["q"].map { String($0).trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        let status = query["status"].map(String.init).flatMap { OrderSchema.orderStatuses.contains($0) ? $0 : nil }
        let types = try await administration.orderTypes(merchantID: merchant.id).map(\.orderTypeIdentifier)
        let type = query["type"].map(String.init).flatMap { types.contains($0) ? $0 : nil }
        let cursor = query["cursor"].map(String.init)
        let changes = try await orders.latestChange(merchant: merchant)
        let page = try await orders.recentOrders(
            merchant: merchant, orderTypeIdentifier: type, status: status, search: search, cursor: cursor, limit: Self.pageSize)
        let devices = try await orders.registeredDeviceCounts(merchant: merchant, orders: page.orders)
        let rows = try await cpu.run { try page.orders.map { try OrderRow(record: $0, devices: devices) } }.map(\.templateValues)
        var values = try layoutValues(context, title: "Orders")
        values["orders"] = rows
        values["hasOrders"] = !rows.isEmpty
        values["query"] = search ?? ""
        // The rows' keys, so that the list also refreshes when a push to one of them is recorded, and the revision the
        // rows were read at (the change sequence read first, so a change made meanwhile still shows).
        let listed = page.orders.map { OrderKey(orderTypeIdentifier: $0.orderTypeIdentifier, orderIdentifier: $0.orderIdentifier) }
        let revision = try await orders.listRevision(merchant: merchant, changes: changes, listed: listed)
        values["events"] =
            "/dashboard/events?"
            + listed.map { "listed=\(Self.queryComponent($0.orderTypeIdentifier))/\(Self.queryComponent($0.orderIdentifier))&" }.joined()
            + "since=\(revision)"
        values["statuses"] = OrderSchema.orderStatuses.map { ["value": $0, "label": WalletPreview.words($0), "selected": $0 == status] }
        // With a second brand, the list names each order's type and filters by it.
        values["orderTypes"] = types.count > 1 ? types.map { ["value": $0, "selected": $0 == type] } : false
        values["showsTypes"] = types.count > 1
        let filters = [("q", search), ("type", type), ("status", status)].compactMap { name, value in value.map { (name, $0) } }
        values["nextHref"] = page.nextCursor.map { Self.listURL(filters + [("cursor", $0)]) } ?? false
        values["firstHref"] = cursor == nil ? false : Self.listURL(filters)
        return resources.page("orders", values)
    }

    func orderTypesPage(_ request: Request, _ context: MerchantRequestContext) async throws -> Response {
        var rows: [OrderTypeRow] = []
        let merchantID = context.merchant.id
        let chosen = try await administration.defaultOrderType(merchantID: merchantID)
        for record in try await administration.orderTypes(merchantID: merchantID) {
            rows.append(
                OrderTypeRow(
                    record: record, identity: try? await packages.identity(for: record.orderTypeIdentifier),
                    isDefault: record.orderTypeIdentifier == chosen))
        }
        var values = try layoutValues(context, title: "Order types")
        values["script"] = "order-types.js"
        values["orderTypes"] = rows.map { $0.templateValues(now: clock.date) }
        values["hasOrderTypes"] = !rows.isEmpty
        let query = request.uri.queryParameters
        if let type = query["type"].map(String.init) {
            switch query["uploaded"].map(String.init) {
            case "certificate"?: values["uploaded"] = "The certificate for \(type) is in place: new packages are signed with it."
            case "apns-key"?: values["uploaded"] = "Pushes for \(type) now authenticate with the APNs key."
            default: break
            }
        }
        return resources.page("order-types", values)
    }

    func carriersPage(
        _ request: Request, _ context: MerchantRequestContext, entry: CarriersPage.Entry = CarriersPage.Entry(), status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let query = request.uri.queryParameters
        var values = try layoutValues(context, title: "Carriers")
        values.merge(
            try await carriers.values(
                merchantID: context.merchant.id, entry: entry, connected: query["connected"].map(String.init),
                // Only an id is announced: the text comes from the address bar.
                deleted: query["deleted"].map(String.init).flatMap { Identifiers.isValid($0) ? $0 : nil })
        ) { $1 }
        return resources.page("carriers", values, status: status)
    }

    func webhooksPage(_ context: MerchantRequestContext, notice: WebhooksPage.Notice?, status: HTTPResponse.Status = .ok) async throws -> Response {
        var values = try layoutValues(context, title: "Webhooks")
        values.merge(try await webhooks.values(merchantID: context.merchant.id, notice: notice)) { $1 }
        return resources.page("webhooks", values, status: status)
    }

    static func listURL(_ parameters: [(String, String)]) -> String {
        var components = URLComponents()
        components.path = "/dashboard"
        components.queryItems = parameters.isEmpty ? nil : parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.string ?? "/dashboard"
    }

    func orderPage(_ request: Request, _ context: MerchantRequestContext) async throws -> Response {
        let merchant = context.merchant
        let (type, id) = try orderPath(context)
        // Read before what the page shows: a change after it moves the revision the page's event stream compares with.
        let revision = try await orders.revision(merchant: merchant, order: OrderKey(orderTypeIdentifier: type, orderIdentifier: id)).mark
        let record = try await orders.order(merchant: merchant, type: type, id: id)
        let pushes = try await orders.pushLog(merchant: merchant, type: type, id: id, limit: Self.transcriptLength)
        let activity = try await orders.activity(merchant: merchant, type: type, id: id, limit: Self.transcriptLength)
        let document = try await cpu.run { try JSONValue.parse(record.document) }
        let uploaded = Set(try await assets.assets(merchant: merchant).map(\.name))
        let localization = PreviewLocalization(
            available: uploaded, requested: request.uri.queryParameters["locale"].map(String.init),
            acceptLanguage: request.headers[.acceptLanguage])
        var strings: [String: String] = [:]
        if let chosen = localization.chosen {
            let file = try await assets.asset(merchant: merchant, name: "\(chosen).lproj/order.strings")
            strings = (try? StringsFile.parse(file.bytes)) ?? [:]
        }
        let (preview, json) = try await cpu.run { [strings] in
            (
                WalletPreview(order: document, orderIdentifier: id, strings: strings, imageURL: { Self.imageURL($0, uploaded: uploaded) }),
                // The token authenticates devices' fetches: a secret the page never shows. Patches leave it as it is.
                document.setting("authenticationToken", to: nil).serializedString(pretty: true)
            )
        }
        var values = try layoutValues(context, title: "Order \(preview.orderNumber)")
        values["script"] = "order-page.js"
        values["events"] = "/dashboard/events?order=\(Self.queryComponent(type))/\(Self.queryComponent(id))&since=\(revision)"
        values["preview"] = preview.templateValues
        values["orderJSON"] = json
        values["version"] = String(record.version)
        values["updateURL"] = "/dashboard/api/orders/\(Self.pathComponent(type))/\(Self.pathComponent(id))"
        values["validateURL"] = "/dashboard/api/orders/\(Self.pathComponent(type))/\(Self.pathComponent(id))/validate"
        values["orderURL"] = Self.orderURL(type: type, id: id)
        values["locales"] = localization.available.map { ["code": $0, "chosen": $0 == localization.chosen] }
        values["hasLocales"] = !localization.available.isEmpty
        values["orderTextChosen"] = localization.chosen == nil
        let transcript = TranscriptEntry.merged(activity: activity, pushes: pushes, limit: Self.transcriptLength)
        values["transcript"] = transcript.map(\.templateValues)
        values["hasTranscript"] = !transcript.isEmpty
        switch request.uri.queryParameters["updated"].map(String.init) {
        case "changed"?: values["updated"] = "Order updated. Registered devices are notified and fetch the new version."
        case "unchanged"?: values["updated"] = "Nothing changed: the order and its devices were left alone."
        default: break
        }
        switch request.uri.queryParameters["notified"].map(String.init).flatMap(Int.init) {
        case 0?: values["updated"] = "No device has registered for this order yet: nothing to notify."
        case let count?: values["updated"] = "Pushes queued for \(count) registered device\(count == 1 ? "" : "s")."
        case nil: break
        }
        return resources.page("order", values)
    }

    /// Where the page loads an image the order names (`logo.png`): the merchant's uploaded asset, served to the
    /// signed-in merchant from this origin (the CSP allows no other); `nil` when it was never uploaded.
    static func imageURL(_ name: String, uploaded: Set<String>) -> String? {
        uploaded.contains(name) ? "/dashboard/assets/\(pathComponent(name))" : nil
    }

    func orderPath(_ context: MerchantRequestContext) throws -> (type: String, id: String) {
        (try RequestParsing.identifier("orderTypeIdentifier", context), try RequestParsing.identifier("orderIdentifier", context))
    }

    /// The order page's path, with each component escaped.
    static func orderURL(type: String, id: String) -> String {
        "/dashboard/orders/\(pathComponent(type))/\(pathComponent(id))"
    }

    static func queryComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_~"))) ?? text
    }

    static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text
    }
}

extension URL {
    /// `host:port` as a `Host` header carries it (the port only when the URL names one).
    var hostAndPort: String? {
        guard let host = host() else { return nil }
        return port.map { "\(host):\($0)" } ?? host
    }
}
