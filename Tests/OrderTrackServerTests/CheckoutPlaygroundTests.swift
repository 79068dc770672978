import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import OrderTrackServer
import ServerTestSupport
import Testing

/// The checkout playground over real HTTP: its page behind the dashboard sign-in, and its two calls, which reach the
/// same services as `/api/v1/apple_pay` (a simulated payment creates an order Wallet can fetch with its orderDetails; a
/// token goes through the Apple Pay checkout), with the dashboard's CSRF check and one merchant never seeing another's.
@Suite struct CheckoutPlaygroundTests {
    typealias Browser = DashboardTests.Browser

    static func post(_ client: Client, _ path: String, _ browser: Browser, json: JSONValue, headers extra: HTTPFields = [:]) async throws
        -> Client.Reply
    {
        var headers = extra
        headers[.cookie] = browser.cookie
        headers[.contentType] = "application/json"
        headers[DashboardTests.csrfHeader] = browser.csrfToken
        return try await client.call(.post, path, headers: headers, body: json.serialized())
    }

    static func pay(_ client: Client, _ browser: Browser, _ body: JSONValue, attempt: String? = nil) async throws -> Client.Reply {
        var headers: HTTPFields = [:]
        if let attempt { headers[HTTPField.Name("Idempotency-Key")!] = attempt }
        return try await post(client, "/dashboard/api/checkout/payments", browser, json: body, headers: headers)
    }

    /// A textarea's content as the page's script reads it: the template escapes it as HTML text.
    static func textarea(_ id: String, in html: String) throws -> JSONValue {
        let start = try #require(html.range(of: #"<textarea id="\#(id)"[^>]*>"#, options: .regularExpression))
        let end = try #require(html.range(of: "</textarea>", range: start.upperBound..<html.endIndex))
        let text = String(html[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        return try JSONValue.parse(Array(text.utf8))
    }

    @Test func thePageNeedsSignInAndReturnsThereAfterwards() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let short = try await client.call(.get, "/checkout")
            #expect(short.status == .seeOther)
            #expect(short.headers[.location] == "/dashboard/checkout")
            let signedOut = try await client.call(.get, "/dashboard/checkout")
            #expect(signedOut.status == .seeOther)
            #expect(signedOut.headers[.location] == "/dashboard/sign-in?next=%2Fdashboard%2Fcheckout")
            let form = try await client.call(.get, "/dashboard/sign-in?next=%2Fdashboard%2Fcheckout")
            #expect(form.text.contains(#"<input type="hidden" name="next" value="/dashboard/checkout">"#))

            var (headers, body) = DashboardTests.form(["api_key": client.apiKey, "next": "/dashboard/checkout"])
            let signedIn = try await client.call(.post, "/dashboard/sign-in", headers: headers, body: body)
            #expect(signedIn.status == .seeOther)
            #expect(signedIn.headers[.location] == "/dashboard/checkout")
            for elsewhere in ["https://attacker.example/", "//attacker.example", "/dashboard/\\attacker.example", "/api/v1/orders"] {
                (headers, body) = DashboardTests.form(["api_key": client.apiKey, "next": elsewhere])
                let reply = try await client.call(.post, "/dashboard/sign-in", headers: headers, body: body)
                #expect(reply.headers[.location] == "/dashboard", "never sent to \(elsewhere)")
            }

            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let page = try await client.call(.get, "/dashboard/checkout", headers: [.cookie: browser.cookie])
            #expect(page.status == .ok)
            #expect(page.headers[.contentSecurityPolicy] == DashboardTests.contentSecurityPolicy)
            #expect(page.text.contains(#"<a href="/dashboard/checkout">Checkout playground</a>"#))
            #expect(page.text.contains(#"<label for="payment-request">Payment request</label>"#))
            #expect(page.text.contains(#"<label for="order-content">Order content</label>"#))
            #expect(page.text.contains(">Simulate payment</button>"))
            #expect(!page.text.contains("<script>") && !page.text.contains("style="), "nothing inline: the CSP would block it")
            let request = try Self.textarea("payment-request", in: page.text)
            let order = try Self.textarea("order-content", in: page.text)
            #expect(order["orderTypeIdentifier"] == "order.dev.ordertrack.demo", "the merchant's order type")
            #expect(request["total"]?["amount"] == order["payment"]?["total"]?["amount"], "the sheet charges what the order says")
            #expect(request["currencyCode"] == order["payment"]?["total"]?["currency"])
            #expect(request["supportedNetworks"]?.arrayValue?.isEmpty == false && request["merchantCapabilities"] != nil)

            // What the page's sheet starts from: shipping methods (the first free, so the total is the goods'), a postal
            // address to ask for and coupon codes; the request's lines are the order's summary items, as the sheet's
            // handlers answer for the first method.
            let methods = try #require(request["shippingMethods"]?.arrayValue)
            #expect(methods.map { $0["identifier"] } == ["standard", "express"])
            #expect(methods.map { $0["amount"] } == ["0.00", "12.00"])
            for method in methods {
                #expect(method["label"]?.stringValue?.isEmpty == false && method["detail"]?.stringValue?.isEmpty == false)
                let range = try #require(method["dateComponentsRange"])
                let start = try #require(range["startDateComponents"]?.objectValue)
                let end = try #require(range["endDateComponents"]?.objectValue)
                #expect(Set(start.keys) == ["years", "months", "days"] && Set(end.keys) == ["years", "months", "days"])
            }
            #expect(request["requiredShippingContactFields"]?.arrayValue?.contains("postalAddress") == true)
            #expect(request["shippingType"] == "shipping" && request["supportsCouponCode"] == .bool(true))
            let lines = try #require(request["lineItems"]?.arrayValue)
            let summary = try #require(order["payment"]?["summaryItems"]?.arrayValue)
            #expect(lines.map { [$0["label"], $0["amount"]] } == summary.map { [$0["label"], $0["value"]?["amount"]] })
            #expect(lines.map { $0["label"] } == ["Subtotal", "Standard Shipping"])
            #expect(page.text.contains(#"<label for="sheet-method">Shipping method</label>"#))
            #expect(page.text.contains(#"<option value="US" selected>United States</option>"#))
            #expect(page.text.contains(#"<label for="sheet-coupon">Coupon code</label>"#))

            // The prefilled order is one the playground accepts as it stands.
            let paid = try await Self.pay(client, browser, ["order": order])
            #expect(paid.status == .created, "\(paid.text)")
        }
    }

    @Test func aSimulatedPaymentCreatesAnOrderWalletCanFetch() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            var order = SampleContent.order
            order["orderNumber"] = "PG-1"
            let paid = try await Self.pay(client, browser, ["order": order], attempt: "attempt-1")
            #expect(paid.status == .created, "\(paid.text)")
            #expect(paid.headers[.cacheControl] == "no-store")
            #expect(paid.json["simulated"] == .bool(true))
            #expect(paid.json.objectValue?.keys.contains("payment") == false, "no card was charged")
            #expect(paid.json["order"]?["orderNumber"] == "PG-1")
            let details = try #require(paid.json["orderDetails"]?.objectValue)
            #expect(Set(details.keys) == ["orderTypeIdentifier", "orderIdentifier", "webServiceURL", "authenticationToken"])
            #expect(details["webServiceURL"] == .string(TestServer.publicURL + "/wallet"))

            // What Apple Pay would hand to Wallet is enough for a device to fetch the order.
            let type = try #require(details["orderTypeIdentifier"]?.stringValue)
            let id = try #require(details["orderIdentifier"]?.stringValue)
            let fetched = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: details["authenticationToken"]?.stringValue)
            #expect(fetched.status == .ok)
            let listed = try await client.merchant(.get, "/api/v1/orders")
            #expect(listed.json["data"]?.arrayValue?.count == 1, "the order is the merchant's, as the API sees it")

            // A double click, or a retry after a lost answer, answers the same order again.
            let again = try await Self.pay(client, browser, ["order": order], attempt: "attempt-1")
            #expect(again.status == .ok)
            #expect(again.json["orderDetails"] == paid.json["orderDetails"])
            // Another payment with the same order number: refused, as order numbers are unique within an order type.
            let reused = try await Self.pay(client, browser, ["order": order], attempt: "attempt-2")
            #expect(reused.status == .conflict)
            #expect(reused.json["error"]?["code"] == "order_number_exists")
            order["orderNumber"] = "PG-2"
            let another = try await Self.pay(client, browser, ["order": order], attempt: "attempt-3")
            #expect(another.status == .created)
            #expect(another.json["orderDetails"]?["orderIdentifier"] != paid.json["orderDetails"]?["orderIdentifier"])
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.count == 2)

            // Track in Wallet after the payment: a link made as the merchant API makes it, opening the same order with a
            // device token of the link's own.
            let linkPath = "/dashboard/api/orders/\(type)/\(id)/wallet-link"
            let link = try await Self.post(client, linkPath, browser, json: [:])
            #expect(link.status == .created)
            let url = try #require(link.json["url"]?.stringValue)
            let opened = try await client.call(.get, String(url.dropFirst(TestServer.publicURL.count)))
            #expect(opened.status == .ok)
            var linked = try ProviderCompatibilityTests.orderJSON(in: opened.body)
            #expect(linked["authenticationToken"] != details["authenticationToken"])
            linked["authenticationToken"] = details["authenticationToken"]
            #expect(linked == (try ProviderCompatibilityTests.orderJSON(in: fetched.body)))
            let withoutToken = try await client.call(.post, linkPath, headers: [.cookie: browser.cookie, .contentType: "application/json"])
            #expect(withoutToken.status == .forbidden, "a link is made only with the page's CSRF token")
        }
    }

    @Test func callsWithoutTheCSRFTokenAreRefused() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let body = (["order": SampleContent.order] as JSONValue).serialized()
            for path in ["/dashboard/api/checkout/payments", "/dashboard/api/checkout/session"] {
                let refused = try await client.call(.post, path, headers: [.cookie: browser.cookie, .contentType: "application/json"], body: body)
                #expect(refused.status == .forbidden, "\(path)")
                #expect(refused.json["error"]?["code"] == "csrf_token_invalid")
                let anonymous = try await client.call(.post, path, headers: [.contentType: "application/json"], body: body)
                #expect(anonymous.status == .unauthorized, "\(path)")
            }
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.isEmpty == true, "nothing was created")
        }
    }

    @Test func aBadOrderIsRefusedWithItsFieldPath() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            var invalid = SampleContent.order
            invalid["status"] = "shipped"
            let refused = try await Self.pay(client, browser, ["order": invalid])
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.json["error"]?["problems"]?.arrayValue?.contains { $0["path"] == "status" } == true, "\(refused.text)")

            var unpriced = SampleContent.order
            unpriced["payment"] = nil
            let noTotal = try await Self.pay(client, browser, ["order": unpriced])
            #expect(noTotal.status == .unprocessableContent && noTotal.json["error"]?["param"] == "payment.total", "\(noTotal.text)")
            let noOrder = try await Self.pay(client, browser, ["order": "not an object"])
            #expect(noOrder.status == .badRequest && noOrder.json["error"]?["code"] == "order_missing")
            let notJSON = try await client.call(
                .post, "/dashboard/api/checkout/payments",
                headers: [.cookie: browser.cookie, .contentType: "application/json", DashboardTests.csrfHeader: browser.csrfToken],
                body: Array(#"{"order": "#.utf8))
            #expect(notJSON.status == .badRequest && notJSON.json["error"]?["code"] == "invalid_json")
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test func aTokenAndMerchantValidationGoThroughApplePay() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let garbage: JSONValue = ["token": ["version": "EC_v1"], "order": SampleContent.order]
            let fromPage = try await Self.pay(client, browser, garbage)
            #expect(fromPage.status == .unprocessableContent, "\(fromPage.text)")
            #expect(fromPage.json["error"]?["param"] == "token", "the Apple Pay checkout refused the token: \(fromPage.text)")
            let fromAPI = try await client.merchant(.post, "/api/v1/apple_pay/payments", json: garbage)
            #expect(fromPage.json == fromAPI.json, "the page's call answers as the API does")
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.isEmpty == true)

            let session: JSONValue = [
                "validationURL": "https://apple-pay-gateway.apple.com/paymentservices/startSession", "domain": "shop.example.com",
            ]
            let unconfigured = try await Self.post(client, "/dashboard/api/checkout/session", browser, json: session)
            #expect(unconfigured.status == .conflict && unconfigured.json["error"]?["code"] == "apple_pay_not_configured", "\(unconfigured.text)")
            let elsewhere = try await Self.post(
                client, "/dashboard/api/checkout/session", browser,
                json: ["validationURL": "https://attacker.example/", "domain": "shop.example.com"])
            #expect(elsewhere.status == .badRequest && elsewhere.json["error"]?["code"] == "validation_url_not_allowed")
            let missing = try await Self.post(client, "/dashboard/api/checkout/session", browser, json: ["domain": "shop.example.com"])
            #expect(missing.status == .badRequest && missing.json["error"]?["code"] == "validation_url_missing")
        }
    }

    @Test func anotherMerchantNeitherSeesNorUsesTheOrder() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let owner = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let paid = try await Self.pay(client, owner, ["order": SampleContent.order])
            let type = try #require(paid.json["orderDetails"]?["orderTypeIdentifier"]?.stringValue)
            let id = try #require(paid.json["orderDetails"]?["orderIdentifier"]?.stringValue)
            let ownPage = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: owner.cookie])
            #expect(ownPage.status == .ok)

            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let other = try await DashboardTests.signIn(client, apiKey: otherKey)
            let foreign = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: other.cookie])
            #expect(foreign.status == .notFound)
            let list = try await client.call(.get, "/dashboard", headers: [.cookie: other.cookie])
            #expect(!list.text.contains(id))
            let page = try await client.call(.get, "/dashboard/checkout", headers: [.cookie: other.cookie])
            #expect(page.text.contains("This merchant has no order type yet"))
            #expect(page.text.contains(#"<a href="/dashboard/order-types">Order types</a>"#))
            #expect(!page.text.contains(type), "another merchant's order type is never offered")
            var borrowedType = SampleContent.order
            borrowedType["orderTypeIdentifier"] = .string(type)
            let borrowed = try await Self.pay(client, other, ["order": borrowedType])
            #expect(borrowed.status == .forbidden && borrowed.json["error"]?["code"] == "order_type_not_owned", "\(borrowed.text)")
        }
    }
}
