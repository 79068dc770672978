import Crypto
import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// The dashboard over real HTTP: sign-in and sign-out, the session cookie's flags and server-side expiry, CSRF
/// refusals, the security headers, one merchant never seeing another's orders, and the validate endpoint.
@Suite struct DashboardTests {
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'"

    /// A signed-in browser: the session cookie and the CSRF token its pages carry.
    struct Browser {
        var cookie: String
        var csrfToken: String
    }

    static func form(_ fields: [String: String]) -> (HTTPFields, [UInt8]) {
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        return ([.contentType: "application/x-www-form-urlencoded"], Array(body.utf8))
    }

    static func signIn(_ client: Client, apiKey: String) async throws -> Browser {
        let (headers, body) = form(["api_key": apiKey])
        let reply = try await client.call(.post, "/dashboard/sign-in", headers: headers, body: body)
        #expect(reply.status == .seeOther)
        let setCookie = try #require(reply.headers[.setCookie])
        let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
        let page = try await client.call(.get, "/dashboard", headers: [.cookie: cookie])
        #expect(page.status == .ok)
        return Browser(cookie: cookie, csrfToken: try #require(csrfToken(in: page.text)))
    }

    static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: #"<meta name="csrf-token" content="([^"]+)">"#, options: .regularExpression) else { return nil }
        return html[range].split(separator: "\"").dropFirst(3).first.map(String.init)
    }

    @Test func signInPageHasTheFormAndTheSecurityHeaders() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let page = try await client.call(.get, "/dashboard/sign-in")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains(#"<label for="api-key">API key</label>"#))
            #expect(page.text.contains(#"<button type="submit" class="button primary">Sign in</button>"#))
            #expect(page.headers[.contentSecurityPolicy] == Self.contentSecurityPolicy)
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
            #expect(!page.text.contains("<script>"), "no inline script: the CSP would block it")

            let css = try await client.call(.get, "/dashboard/static/dashboard.css")
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.cacheControl] == "public, max-age=300")
            let etag = try #require(css.headers[.eTag])
            let revalidated = try await client.call(.get, "/dashboard/static/dashboard.css", headers: [.ifNoneMatch: etag])
            #expect(revalidated.status == .notModified)
        }
    }

    @Test func aWrongKeyIsRefusedOnThePage() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (headers, body) = Self.form(["api_key": "sk_not-a-key"])
            let reply = try await client.call(.post, "/dashboard/sign-in", headers: headers, body: body)
            #expect(reply.status == .unauthorized)
            #expect(reply.text.contains("That API key is not valid"))
            #expect(reply.headers[.setCookie] == nil)
            let signedOut = try await client.call(.get, "/dashboard")
            #expect(signedOut.status == .seeOther)
            #expect(signedOut.headers[.location] == "/dashboard/sign-in")
        }
    }

    @Test func theSessionCookieIsHttpOnlyStrictSecureAndStoredHashed() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (headers, body) = Self.form(["api_key": client.apiKey])
            let reply = try await client.call(.post, "/dashboard/sign-in", headers: headers, body: body)
            #expect(reply.status == .seeOther)
            #expect(reply.headers[.location] == "/dashboard")
            let setCookie = try #require(reply.headers[.setCookie])
            let attributes = Set(setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            #expect(attributes.isSuperset(of: ["httponly", "samesite=strict", "secure", "path=/dashboard", "max-age=43200"]), "\(setCookie)")
            let value = try #require(setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
            #expect(value.count >= 43, "256 random bits")
            let hash = SHA256.hash(data: Array(value.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(try await client.store.dashboardSession(idHash: hash) != nil)
            #expect(try await client.store.dashboardSession(idHash: value) == nil, "the id itself is never stored")
        }
    }

    @Test func sessionsExpireOnTheServer() async throws {
        let clock = TestClock()
        var server = try TestServer()
        server.now = { clock.date }
        defer { server.remove() }
        try await server.run { client in
            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            clock.advance(by: .seconds(12 * 3600 + 1))
            let expired = try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie])
            #expect(expired.status == .seeOther)
            #expect(expired.headers[.location] == "/dashboard/sign-in")
        }
    }

    @Test func signOutEndsTheSessionForGood() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let (headers, body) = Self.form(["csrf": browser.csrfToken])
            var signOutHeaders = headers
            signOutHeaders[.cookie] = browser.cookie
            let reply = try await client.call(.post, "/dashboard/sign-out", headers: signOutHeaders, body: body)
            #expect(reply.status == .seeOther)
            #expect(reply.headers[.setCookie]?.contains("Max-Age=0") == true)
            let refused = try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie])
            #expect(refused.status == .seeOther)
            let api = try await client.call(
                .post, "/dashboard/api/orders/validate", headers: [.cookie: browser.cookie, DashboardTests.csrfHeader: browser.csrfToken],
                body: Array("{}".utf8))
            #expect(api.status == .unauthorized)
        }
    }

    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    @Test func changesWithoutTheCSRFTokenAreRefused() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder().details
            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let patch = Array(#"{"status": "completed"}"#.utf8)
            let path = "/dashboard/api/orders/\(type)/\(id)"
            for token in [nil, "", "wrong", String(browser.csrfToken.dropLast())] {
                var headers: HTTPFields = [.cookie: browser.cookie, .contentType: "application/json"]
                if let token { headers[Self.csrfHeader] = token }
                let refused = try await client.call(.patch, path, headers: headers, body: patch)
                #expect(refused.status == .forbidden, "token \(token ?? "absent")")
                #expect(refused.json["error"]?["code"]?.stringValue == "csrf_token_invalid")
            }
            let signOut = try await client.call(.post, "/dashboard/sign-out", headers: [.cookie: browser.cookie])
            #expect(signOut.status == .forbidden, "a form without the token does not sign out either")
            let order = try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)")
            #expect(order.json["order"]?["status"]?.stringValue == "open", "nothing changed")

            let accepted = try await client.call(
                .patch, path, headers: [.cookie: browser.cookie, .contentType: "application/json", Self.csrfHeader: browser.csrfToken], body: patch)
            #expect(accepted.status == .ok)
            #expect(accepted.json["changed"] == .bool(true))
            #expect(accepted.json["order"]?["status"]?.stringValue == "completed")
        }
    }

    @Test func pagesShowTheMerchantsOwnOrdersOnly() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder(number: "A-1001").details
            _ = try await client.createOrder(number: "A-1002")
            let owner = try await Self.signIn(client, apiKey: client.apiKey)
            let list = try await client.call(.get, "/dashboard", headers: [.cookie: owner.cookie])
            #expect(list.headers[.contentSecurityPolicy] == Self.contentSecurityPolicy)
            #expect(list.headers[.cacheControl] == "no-store")
            let newest = try #require(list.text.range(of: "A-1002"))
            let older = try #require(list.text.range(of: "A-1001"))
            #expect(newest.lowerBound < older.lowerBound, "newest first")
            let page = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: owner.cookie])
            #expect(page.status == .ok)
            #expect(page.text.contains("<h1>Order A-1001</h1>"))
            #expect(page.text.contains(#"aria-label="Wallet preview""#))

            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let other = try await Self.signIn(client, apiKey: otherKey)
            let otherList = try await client.call(.get, "/dashboard", headers: [.cookie: other.cookie])
            #expect(!otherList.text.contains("A-1001") && !otherList.text.contains(id))
            let searched = try await client.call(.get, "/dashboard?q=\(id)", headers: [.cookie: other.cookie])
            #expect(!searched.text.contains("A-1001"))
            let foreign = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: other.cookie])
            #expect(foreign.status == .notFound)
            #expect(!foreign.text.contains("A-1001"))
            let patched = try await client.call(
                .patch, "/dashboard/api/orders/\(type)/\(id)",
                headers: [.cookie: other.cookie, .contentType: "application/json", Self.csrfHeader: other.csrfToken],
                body: Array(#"{"status": "cancelled"}"#.utf8))
            #expect(patched.status == .notFound)
            let stolenToken = try await client.call(
                .patch, "/dashboard/api/orders/\(type)/\(id)",
                headers: [.cookie: other.cookie, .contentType: "application/json", Self.csrfHeader: owner.csrfToken],
                body: Array(#"{"status": "cancelled"}"#.utf8))
            #expect(stolenToken.status == .forbidden, "a CSRF token belongs to its own session")
        }
    }

    @Test func theListCountsDevicesFiltersAndPagesNewestFirst() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            var created: [CreatedTestOrder] = []
            for index in 1...27 { created.append(try await client.createOrder(number: "N-\(100 + index)")) }
            let first = try #require(created.first)
            let order = try await client.merchant(.get, "/api/v1/orders/\(first.type)/\(first.id)")
            let token = try #require(order.json["order"]?["authenticationToken"]?.stringValue)
            let registered = try await client.device(
                .post, "/wallet/v1/devices/device-1/registrations/\(first.type)/\(first.id)", token: token, json: ["pushToken": "0123456789abcdef"])
            #expect(registered.status == .created)
            _ = try await client.merchant(.patch, "/api/v1/orders/\(first.type)/\(first.id)", json: ["status": "completed"])

            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let newest = try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie])
            #expect(newest.text.contains("N-127") && newest.text.contains("N-103") && !newest.text.contains("N-102"), "25 newest")
            let next = try #require(newest.text.range(of: #"href="/dashboard\?cursor=[^"]+""#, options: .regularExpression))
            let nextPath = String(newest.text[next].dropFirst(6).dropLast())
            let older = try await client.call(.get, nextPath, headers: [.cookie: browser.cookie])
            #expect(older.text.contains("N-102") && older.text.contains("N-101") && !older.text.contains("N-103"))
            let deviceCell = try #require(older.text.range(of: #"N-101</a>(?s:.)*?<td class="num">1</td>"#, options: .regularExpression))
            #expect(!older.text[deviceCell].contains("N-102"), "the device count is on the registered order's row")

            let completed = try await client.call(.get, "/dashboard?status=completed", headers: [.cookie: browser.cookie])
            #expect(completed.text.contains("N-101") && !completed.text.contains("N-127"))
            let found = try await client.call(.get, "/dashboard?q=\(created[5].id)", headers: [.cookie: browser.cookie])
            #expect(found.text.contains("N-106") && !found.text.contains("N-107"))
            let byNumber = try await client.call(.get, "/dashboard?q=N-107", headers: [.cookie: browser.cookie])
            #expect(byNumber.text.contains(created[6].id) && !byNumber.text.contains("N-106"))
            _ = try await client.merchant(.patch, "/api/v1/orders/\(first.type)/\(first.id)", json: ["orderNumber": "R-9"])
            let renumbered = try await client.call(.get, "/dashboard?q=R-9", headers: [.cookie: browser.cookie])
            #expect(renumbered.text.contains(first.id), "a changed order number is found by its new value")
            let badCursor = try await client.call(.get, "/dashboard?cursor=nonsense", headers: [.cookie: browser.cookie])
            #expect(badCursor.status == .badRequest)
            #expect(badCursor.headers[.contentType] == "text/html; charset=utf-8")
        }
    }

    @Test func theOrderPageDownloadsThePackageAndNotifiesDevices() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder(number: "P-1").details
            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let page = "/dashboard/orders/\(type)/\(id)"
            let package = try await client.call(.get, "\(page)/package", headers: [.cookie: browser.cookie])
            #expect(package.status == .ok)
            #expect(package.headers[.contentType] == "application/vnd.apple.finance.order")
            #expect(package.headers[.contentDisposition] == #"attachment; filename="P-1.order""#)
            #expect(ZipNames.of(package.body).contains("order.json"))

            let unsigned = try await client.call(.post, "\(page)/notify", headers: [.cookie: browser.cookie])
            #expect(unsigned.status == .forbidden)
            let (headers, body) = Self.form(["csrf": browser.csrfToken])
            var formHeaders = headers
            formHeaders[.cookie] = browser.cookie
            let notified = try await client.call(.post, "\(page)/notify", headers: formHeaders, body: body)
            #expect(notified.status == .seeOther)
            #expect(notified.headers[.location] == "\(page)?notified=0")
            let shown = try await client.call(.get, "\(page)?notified=0", headers: [.cookie: browser.cookie])
            #expect(shown.text.contains("No device has registered for this order yet"))
        }
    }

    @Test func thePreviewShowsTheMerchantsUploadedImages() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let png = try #require(
                Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="))
            let uploaded = try await client.call(
                .put, "/api/v1/assets/logo.png", headers: [.authorization: "Bearer \(client.apiKey)"], body: Array(png))
            #expect(uploaded.status == .ok)
            var content = SampleContent.order
            content["merchant"]?["logo"] = "logo.png"
            let created = try await client.merchant(.post, "/api/v1/orders", json: content)
            #expect(created.status == .created)
            let id = try #require(created.json["orderDetails"]?["orderIdentifier"]?.stringValue)
            let type = try #require(created.json["orderDetails"]?["orderTypeIdentifier"]?.stringValue)

            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let page = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: browser.cookie])
            #expect(page.text.contains(#"<img src="/dashboard/assets/logo.png" alt="">"#))
            let image = try await client.call(.get, "/dashboard/assets/logo.png", headers: [.cookie: browser.cookie])
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/png")
            #expect(image.body == Array(png))
            let anonymous = try await client.call(.get, "/dashboard/assets/logo.png")
            #expect(anonymous.status == .seeOther)
            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let other = try await Self.signIn(client, apiKey: otherKey)
            let foreign = try await client.call(.get, "/dashboard/assets/logo.png", headers: [.cookie: other.cookie])
            #expect(foreign.status == .notFound)
        }
    }

    @Test func thePreviewSpeaksTheChosenLocalization() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let strings = Array(#""Coffee beans" = "Grains de café";"#.utf8) + [0x0A]
            let uploaded = try await client.call(
                .put, "/api/v1/assets/fr.lproj/order.strings", headers: [.authorization: "Bearer \(client.apiKey)"], body: strings)
            #expect(uploaded.status == .ok)
            let (type, id, _) = try await client.createOrder().details
            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let page = "/dashboard/orders/\(type)/\(id)"
            let french = try await client.call(.get, "\(page)?locale=fr", headers: [.cookie: browser.cookie])
            #expect(french.text.contains("Grains de café"))
            #expect(french.text.contains(#"<a href="?locale=fr" aria-current="true">fr</a>"#))
            let base = try await client.call(.get, "\(page)?locale=base", headers: [.cookie: browser.cookie])
            #expect(!base.text.contains("Grains de café") && base.text.contains("Coffee beans"))
            let browserLanguage = try await client.call(.get, page, headers: [.cookie: browser.cookie, .acceptLanguage: "fr-CH, en;q=0.5"])
            #expect(browserLanguage.text.contains("Grains de café"))
        }
    }

    @Test func theOrderTypesPageShowsEachCertificateAndItsExpiry() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let page = try await client.call(.get, "/dashboard/order-types", headers: [.cookie: browser.cookie])
            #expect(page.status == .ok)
            #expect(page.text.contains("order.dev.ordertrack.demo"))
            #expect(page.text.contains("Order Type ID certificate"))
            #expect(page.text.contains(#"<span class="badge badge-green">Valid</span>"#))
            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let other = try await Self.signIn(client, apiKey: otherKey)
            let otherPage = try await client.call(.get, "/dashboard/order-types", headers: [.cookie: other.cookie])
            #expect(!otherPage.text.contains("order.dev.ordertrack.demo"))
            #expect(otherPage.text.contains("No order type yet"))
        }
    }

    /// How often an event stream asks the store for its page's revision (`DashboardEvents.pollInterval`).
    static let eventsPollInterval = Duration.seconds(2)

    /// The server on a clock the test holds: a stream has read its starting point once it sleeps for its first poll.
    static func serverOnHeldClock() throws -> (TestServer, TestClock) {
        let clock = TestClock()
        var server = try TestServer()
        server.clock = ServerClock(clock, startingAt: Date())
        return (server, clock)
    }

    @Test(.timeLimit(.minutes(10))) func eventsTellAnOpenPageThatItsOrderChanged() async throws {
        let (server, clock) = try Self.serverOnHeldClock()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder().details
            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let stream = Task { try await client.call(.get, "/dashboard/events?order=\(type)/\(id)", headers: [.cookie: browser.cookie]) }
            // The stream reads its starting point, then sleeps for a poll interval: the one sleeper of exactly 2 s among
            // the server's loops on the clock standing still.
            await clock.waitForSleeper(until: clock.now.advanced(by: Self.eventsPollInterval))
            // A change through the store: the test client's one connection is busy with the stream, as another
            // instance's change would be.
            let current = try #require(try await client.store.order(type: type, id: id))
            _ = try await client.store.updateOrder(
                type: type, id: id, expectedVersion: current.version, document: current.document, status: current.status,
                orderNumber: current.orderNumber, updatedAt: Date())
            clock.advance(by: Self.eventsPollInterval)
            let reply = try await stream.value
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "text/event-stream")
            // An order page's event names the order's version: a push attempt moves the revision, not the content.
            #expect(reply.text.contains("event: changed\ndata: {\"version\":") && reply.text.hasSuffix("}\n\n"), "\(reply.text)")

            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let other = try await Self.signIn(client, apiKey: otherKey)
            let foreign = try await client.call(.get, "/dashboard/events?order=\(type)/\(id)", headers: [.cookie: other.cookie])
            #expect(foreign.status == .notFound)
        }
    }

    @Test(.timeLimit(.minutes(10))) func theListRefreshesWhenAPushToOneOfItsRowsIsRecorded() async throws {
        let (server, clock) = try Self.serverOnHeldClock()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder().details
            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let list = try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie])
            let events = "/dashboard/events?listed=\(type)/\(id)"
            #expect(list.text.contains(#"data-events="\#(events)&amp;since=1.0""#), "the list names its rows and its revision to the stream")
            // A stream opened with the revision a page was rendered at reports a change made in between at once.
            let staleStream = Task {
                try await client.call(.get, "/dashboard/events?order=\(type)/\(id)&since=0.0.0", headers: [.cookie: browser.cookie])
            }
            await clock.waitForSleeper(until: clock.now.advanced(by: Self.eventsPollInterval))
            clock.advance(by: Self.eventsPollInterval)
            let stale = try await staleStream.value
            #expect(stale.text.hasSuffix("event: changed\ndata: {\"version\":1}\n\n"), "\(stale.text)")
            let stream = Task { try await client.call(.get, events, headers: [.cookie: browser.cookie]) }
            await clock.waitForSleeper(until: clock.now.advanced(by: Self.eventsPollInterval))
            // A push attempt recorded for the row, as the dispatcher records one (no order change).
            let job = PushJob(
                id: -1, orderTypeIdentifier: type, pushToken: String(repeating: "ab", count: 32), orderIdentifier: id, generation: 0,
                attempts: 1, enqueuedAt: Date(), leaseOwner: "test", position: PushQueuePosition(availableAt: 0, id: -1))
            let entry = PushLogEntry(
                orderTypeIdentifier: type, orderIdentifier: id, tokenSuffix: "abababab", attempt: 1, status: 200, reason: nil,
                apnsID: nil, outcome: .delivered, at: Date())
            try await client.store.resolvePushJobs([(job, .park, entry)])
            clock.advance(by: Self.eventsPollInterval)
            let reply = try await stream.value
            #expect(reply.text.hasSuffix("event: changed\ndata: {}\n\n"))
            #expect(try await client.store.order(type: type, id: id)?.version == 1, "the order did not change: the push alone did it")
        }
    }

    @Test func aSignInPostedFromAnotherSiteIsRefused() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            var (headers, body) = Self.form(["api_key": client.apiKey])
            headers[.origin] = "https://attacker.example"
            let reply = try await client.call(.post, "/dashboard/sign-in", headers: headers, body: body)
            #expect(reply.status == .forbidden)
            #expect(reply.headers[.setCookie] == nil)
        }
    }

    @Test func validateAnswersEveryProblemAtItsPath() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder().details
            var order = try #require(try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)").json["order"])
            let valid = try await client.merchant(.post, "/api/v1/orders/validate", json: order)
            #expect(valid.status == .ok)
            #expect(valid.json["valid"] == .bool(true))

            order["status"] = "shipped"
            order["fulfillments"] = [["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "lost"]]
            let invalid = try await client.merchant(.post, "/api/v1/orders/validate", json: order)
            #expect(invalid.status == .ok)
            #expect(invalid.json["valid"] == .bool(false))
            let paths = (invalid.json["problems"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            #expect(paths.contains("status") && paths.contains("fulfillments[0].status"), "\(paths)")
            #expect(invalid.json["problems"]?.arrayValue?.first?["severity"]?.stringValue == "error")

            let notJSON = try await client.call(
                .post, "/api/v1/orders/validate", headers: [.authorization: "Bearer \(client.apiKey)"], body: Array("{".utf8))
            #expect(notJSON.status == .ok)
            #expect(notJSON.json["problems"]?.arrayValue?.first?["path"]?.stringValue == "")
            let anonymous = try await client.call(.post, "/api/v1/orders/validate", body: Array("{}".utf8))
            #expect(anonymous.status == .unauthorized)

            let browser = try await Self.signIn(client, apiKey: client.apiKey)
            let fromPage = try await client.call(
                .post, "/dashboard/api/orders/validate", headers: [.cookie: browser.cookie, Self.csrfHeader: browser.csrfToken],
                body: order.serialized())
            #expect(fromPage.json == invalid.json, "the page's call answers as the API does")
        }
    }
}
