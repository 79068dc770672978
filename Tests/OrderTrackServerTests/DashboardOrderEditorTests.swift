import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import Testing

/// The order page's editor keeps the order's authentication token out of the page: it validates and applies its edit
/// as a patch of the current order, and the token devices hold keeps working.
@Suite struct DashboardOrderEditorTests {
    @Test func thePageNeverShowsTheTokenAndAnEditKeepsIt() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder(number: "E-1").details
            let order = try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)")
            let token = try #require(order.json["order"]?["authenticationToken"]?.stringValue)
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let page = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: browser.cookie])
            #expect(page.status == .ok)
            #expect(!page.text.contains(token), "the token is a secret")
            #expect(!page.text.contains("authenticationToken"))
            #expect(page.text.contains(#"data-validate-url="/dashboard/api/orders/\#(type)/\#(id)/validate""#))

            let headers: HTTPFields = [.cookie: browser.cookie, .contentType: "application/json", DashboardTests.csrfHeader: browser.csrfToken]
            let validate = "/dashboard/api/orders/\(type)/\(id)/validate"
            let valid = try await client.call(.post, validate, headers: headers, body: Array(#"{"status": "completed"}"#.utf8))
            #expect(valid.status == .ok)
            #expect(valid.json["valid"] == .bool(true), "\(valid.text)")
            let invalid = try await client.call(.post, validate, headers: headers, body: Array(#"{"status": "shipped"}"#.utf8))
            #expect(invalid.json["valid"] == .bool(false))
            #expect(invalid.json["problems"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == ["status"])
            let fixed = try await client.call(
                .post, validate, headers: headers, body: Array(#"{"orderIdentifier": "another"}"#.utf8))
            #expect(fixed.json["valid"] == .bool(false))
            #expect(fixed.json["problems"]?.arrayValue?.first?["path"]?.stringValue == "orderIdentifier", "the update would refuse it")
            let unsigned = try await client.call(
                .post, validate, headers: [.cookie: browser.cookie, .contentType: "application/json"], body: Array("{}".utf8))
            #expect(unsigned.status == .forbidden)

            let updated = try await client.call(
                .patch, "/dashboard/api/orders/\(type)/\(id)", headers: headers, body: Array(#"{"status": "completed"}"#.utf8))
            #expect(updated.status == .ok)
            #expect(updated.json["changed"] == .bool(true))
            #expect(updated.json["order"]?["status"]?.stringValue == "completed")
            #expect(!updated.text.contains(token))
            let fetched = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: token)
            #expect(fetched.status == .ok, "the token devices hold still fetches the order")
            let stored = try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)")
            #expect(stored.json["order"]?["authenticationToken"]?.stringValue == token)
            #expect(stored.json["order"]?["status"]?.stringValue == "completed")
        }
    }
}
