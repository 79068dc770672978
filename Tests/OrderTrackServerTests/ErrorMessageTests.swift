import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import Testing

/// Errors that say what happened (issue #27 item 10): each names the thing at fault and what to do.
@Suite struct ErrorMessageTests {
    @Test func aRotatedSecretSaysItWasRotatedOnTheAPIAndTheDashboard() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let key = try await RestrictedKeyTests.createKey(client, ["name": "warehouse", "scopes": ["orders:read"]])
            let rotated = try await client.merchant(.post, "/api/v1/api-keys/\(key.id)/rotate")
            #expect(rotated.status == .ok || rotated.status == .created, "\(rotated.text)")
            let newSecret = try #require(rotated.json["secret"]?.stringValue)
            let old = try await client.call(.get, "/api/v1/orders", headers: [.authorization: "Bearer \(key.secret)"])
            #expect(old.status == .unauthorized)
            let message = try #require(old.json["error"]?["message"]?.stringValue)
            #expect(message.contains("this secret of API key \(key.id) was rotated on "), "\(message)")
            #expect(message.contains("use the new secret"), "\(message)")
            #expect(try await client.call(.get, "/api/v1/orders", headers: [.authorization: "Bearer \(newSecret)"]).status == .ok)

            // The merchant's own secret key rotated: the dashboard's sign-in says so too.
            let own = try #require(try await client.merchant(.get, "/api/v1/api-keys").json["data"]?.arrayValue?.first { $0["scopes"] == .null })
            let ownID = try #require(own["id"]?.stringValue)
            let rotatedOwn = try await client.merchant(.post, "/api/v1/api-keys/\(ownID)/rotate")
            #expect(rotatedOwn.json["secret"]?.stringValue != nil, "\(rotatedOwn.text)")
            let (headers, body) = DashboardTests.form(["api_key": client.apiKey])
            let page = try await client.call(.post, "/dashboard/sign-in", headers: headers, body: body)
            #expect(page.status == .unauthorized)
            #expect(page.text.contains("That secret of API key \(ownID) was rotated on "), "\(page.text)")
        }
    }

    @Test func aPatchOfAnUnknownFulfillmentNamesTheExistingOnes() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let path = try await client.createOrder().path
            let refused = try await client.merchant(.patch, path, json: ["fulfillments": [["fulfillmentIdentifier": "ship-9", "status": "shipped"]]])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.json["error"]?["code"] == "patch_invalid")
            #expect(refused.json["error"]?["param"] == "fulfillments[0].fulfillmentIdentifier")
            #expect(
                refused.json["error"]?["message"]?.stringValue
                    == "no fulfillment ship-9; existing: ship-1; to add one, give fulfillmentType (shipping or pickup)", "\(refused.text)")
            // With its type it is a new fulfillment.
            let added = try await client.merchant(
                .patch, path, json: ["fulfillments": [["fulfillmentIdentifier": "ship-9", "fulfillmentType": "shipping", "status": "processing"]]])
            #expect(added.status == .ok, "\(added.text)")
            #expect(added.json["order"]?["fulfillments"]?.arrayValue?.count == 2)
        }
    }

    @Test func aWalletLinkLifetimeIsQuotedAsSent() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let path = try await client.createOrder().path
            let refused = try await client.merchant(.post, path + "/wallet-link", json: ["expiresIn": 30])
            #expect(refused.status == .badRequest)
            let message = try #require(refused.json["error"]?["message"]?.stringValue)
            #expect(message.hasSuffix("not 30"), "\(message)")
        }
    }
}
