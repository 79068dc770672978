import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import TestSupport
import Testing

/// The dashboard's Webhooks page: adding an endpoint through the service the merchant API uses (the secret shown once),
/// refusals shown with nothing stored, rotating, deleting, and forms without the page's CSRF token refused.
@Suite(.serialized) struct DashboardWebhooksTests {
    static func post(_ client: Client, _ browser: DashboardTests.Browser, _ path: String, csrf: String?, _ fields: [String: String] = [:])
        async throws -> Client.Reply
    {
        var fields = fields
        if let csrf { fields["csrf"] = csrf }
        let (formHeaders, body) = DashboardTests.form(fields)
        var headers = formHeaders
        headers[.cookie] = browser.cookie
        return try await client.call(.post, path, headers: headers, body: body)
    }

    @Test func endpointsAreAddedRotatedAndDeletedOnThePage() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let empty = try await client.call(.get, "/dashboard/webhooks", headers: [.cookie: browser.cookie])
            #expect(empty.status == .ok && empty.text.contains("<h1>Webhooks</h1>") && empty.text.contains("No endpoint yet"))
            #expect(empty.text.contains(#"<a href="/dashboard/webhooks">Webhooks</a>"#))
            #expect(empty.text.contains(#"src="/dashboard/static/webhooks.js""#))
            #expect(!empty.text.contains("live-refresh.js"), "the page has no event stream")
            #expect(try await client.call(.get, "/dashboard/static/webhooks.js", headers: [.cookie: browser.cookie]).status == .ok)

            let forged = try await Self.post(client, browser, "/dashboard/webhooks", csrf: nil, ["url": "https://shop.example.com/h", "events": "*"])
            #expect(forged.status == .forbidden)
            let refused = try await Self.post(
                client, browser, "/dashboard/webhooks", csrf: browser.csrfToken, ["url": "https://shop.example.com/h", "events": "order.shipped"])
            #expect(refused.status == .badRequest && refused.text.contains("Not added: order.shipped is not an event type"), "\(refused.text)")
            #expect(try await client.merchant(.get, "/api/v1/webhook-endpoints").json["data"] == [])

            let added = try await Self.post(
                client, browser, "/dashboard/webhooks", csrf: browser.csrfToken,
                ["url": "https://shop.example.com/h", "events": "order.created, order.updated", "description": "shop"])
            #expect(added.status == .ok, "\(added.text)")
            let listed = try #require(try await client.merchant(.get, "/api/v1/webhook-endpoints").json["data"]?.arrayValue?.first)
            let id = try #require(listed["id"]?.stringValue)
            #expect(listed["events"] == ["order.created", "order.updated"] && listed["description"] == "shop")
            let secret = try #require(added.text.firstMatch(of: /whsec_[A-Za-z0-9_-]+/).map { String($0.output) })
            let page = try await client.call(.get, "/dashboard/webhooks", headers: [.cookie: browser.cookie])
            #expect(page.text.contains("https://shop.example.com/h") && page.text.contains("Enabled") && !page.text.contains("whsec_"))

            let rotated = try await Self.post(client, browser, "/dashboard/webhooks/\(id)/rotate-secret", csrf: browser.csrfToken)
            let newSecret = rotated.text.firstMatch(of: /whsec_[A-Za-z0-9_-]+/).map { String($0.output) }
            #expect(rotated.status == .ok && newSecret != nil && newSecret != secret)
            let deleted = try await Self.post(client, browser, "/dashboard/webhooks/\(id)/delete", csrf: browser.csrfToken)
            #expect(deleted.status == .ok && deleted.text.contains("Endpoint \(id) deleted."))
            #expect(try await client.merchant(.get, "/api/v1/webhook-endpoints").json["data"] == [])
        }
    }
}
