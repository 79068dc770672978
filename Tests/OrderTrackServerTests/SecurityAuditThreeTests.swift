import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// The findings of the third security audit (2026-11-24) that cross the merchant API: each test is named after its
/// finding and failed before the fix.
@Suite struct SecurityAuditThreeTests {
    /// L18: a replayed create answers only a key allowed the saved order's type.
    @Test func l18_anIdempotentReplayHonoursTheKeysOrderTypes() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let other = RestrictedKeyTests.otherOrderType
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: client.credentials.merchantID, other)
            let body = SampleContent.order
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "order-1"]
            let created = try await client.merchant(.post, "/api/v1/orders", json: body, headers: key)
            #expect(created.status == .created, "\(created.text)")
            let limited = try await RestrictedKeyTests.createKey(
                client, ["name": "other brand", "scopes": ["orders:write"], "orderTypeIdentifiers": [.string(other)]])
            var headers = key
            headers[.authorization] = "Bearer \(limited.secret)"
            headers[.contentType] = "application/json"
            let replayed = try await client.call(.post, "/api/v1/orders", headers: headers, body: body.serialized())
            #expect(replayed.status == .forbidden && replayed.json["error"]?["code"] == "order_type_not_allowed", "\(replayed.text)")
            #expect(!replayed.text.contains(created.json["orderDetails"]?["authenticationToken"]?.stringValue ?? "-"))
            // The secret key still gets its replay.
            #expect(try await client.merchant(.post, "/api/v1/orders", json: body, headers: key).json == created.json)
        }
    }

    /// L19: an authentication token names one order: a create cannot take another order's token, whoever owns it, and
    /// the refusal reads the same either way.
    @Test func l19_oneMerchantCannotTakeAnotherMerchantsOrderToken() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            var first = SampleContent.order
            first["authenticationToken"] = "merchant-chosen-token-0123456789"
            #expect(try await client.merchant(.post, "/api/v1/orders", json: first).status == .created)
            let (merchantB, keyB) = try await Administration(store: client.store).createMerchant(name: "Merchant B")
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: merchantB.id, "order.com.example.merchantb")
            var stolen = SampleContent.order
            stolen["authenticationToken"] = "merchant-chosen-token-0123456789"
            stolen["orderTypeIdentifier"] = "order.com.example.merchantb"
            let refused = try await RestrictedKeyTests.call(client, keyB, .post, "/api/v1/orders", json: stolen)
            #expect(refused.status == .unprocessableContent && refused.json["error"]?["param"] == "authenticationToken", "\(refused.text)")
            stolen["orderNumber"] = .string(SampleContent.uniqueNumber())
            stolen["orderTypeIdentifier"] = nil
            let own = try await client.merchant(.post, "/api/v1/orders", json: stolen)
            #expect(own.json["error"]?["message"] == refused.json["error"]?["message"], "the same words for one's own order")
            // The customer's device still finds its one order by the token.
            let registered = try await client.device(
                .post, "/wallet/v1/push", token: "merchant-chosen-token-0123456789", json: ["pushToken": .string(String(repeating: "ab", count: 32))])
            #expect(registered.status == .created, "\(registered.text)")
        }
    }

    /// M11: a dashboard session ends with the key that opened it: revoked, rotated or expired; and "sign out everywhere"
    /// ends every session of the merchant.
    @Test func m11_aSessionEndsWithItsKey() async throws {
        let clock = TestClock()
        var server = try TestServer()
        server.now = { clock.date }
        defer { server.remove() }
        try await server.run { client in
            func signedIn(_ browser: DashboardTests.Browser) async throws -> Bool {
                let page = try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie])
                let api = try await client.call(
                    .post, "/dashboard/api/orders/validate", headers: [.cookie: browser.cookie, DashboardTests.csrfHeader: browser.csrfToken],
                    body: Array("{}".utf8))
                #expect((page.status == .ok) == (api.status == .ok), "pages and the dashboard's API agree: \(page.status) \(api.status)")
                return page.status == .ok
            }
            // Secret keys (the API makes restricted ones only), as `ordertrack merchant api-key` makes them.
            func secretKey(_ name: String, expiresAt: Date? = nil) async throws -> (id: String, secret: String) {
                let made = try await Administration(store: client.store, now: { clock.date }).createAPIKey(
                    merchantID: client.credentials.merchantID, name: name, scopes: nil, orderTypeIdentifiers: nil, expiresAt: expiresAt)
                return (made.key.id, made.secret)
            }
            let leaked = try await secretKey("leaked")
            let thief = try await DashboardTests.signIn(client, apiKey: leaked.secret)
            let owner = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            #expect(try await client.merchant(.delete, "/api/v1/api-keys/\(leaked.id)").status == .ok)
            #expect(try await !signedIn(thief), "revoked")
            #expect(try await signedIn(owner), "another key's session goes on")

            let rotating = try await secretKey("rotating")
            let before = try await DashboardTests.signIn(client, apiKey: rotating.secret)
            let rotated = try await client.merchant(.post, "/api/v1/api-keys/\(rotating.id)/rotate")
            #expect(rotated.status == .ok, "\(rotated.text)")
            #expect(try await !signedIn(before), "rotated")
            let after = try await DashboardTests.signIn(client, apiKey: try #require(rotated.json["secret"]?.stringValue))
            #expect(try await signedIn(after))

            // A key's expiry ends its sessions too, and the cookie lasts no longer than the key.
            let expiring = try await secretKey("expiring", expiresAt: clock.date.addingTimeInterval(600))
            let (form, fields) = DashboardTests.form(["api_key": expiring.secret])
            let signIn = try await client.call(.post, "/dashboard/sign-in", headers: form, body: fields)
            let maxAge = signIn.headers[.setCookie]?.firstMatch(of: /Max-Age=(\d+)/).flatMap { Int($0.1) } ?? .max
            #expect(maxAge <= 600, "\(signIn.headers[.setCookie] ?? "")")
            let short = try await DashboardTests.signIn(client, apiKey: expiring.secret)
            #expect(try await signedIn(short))
            clock.advance(by: .seconds(601))
            #expect(try await !signedIn(short), "expired with its key")

            // Sign out everywhere, from one browser: the others are signed out too.
            let (headers, body) = DashboardTests.form(["csrf": owner.csrfToken])
            var everywhere = headers
            everywhere[.cookie] = owner.cookie
            let ended = try await client.call(.post, "/dashboard/sign-out-everywhere", headers: everywhere, body: body)
            #expect(ended.status == .seeOther && ended.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await !signedIn(owner))
            #expect(try await !signedIn(after))
            let withoutToken = try await client.call(.post, "/dashboard/sign-out-everywhere", headers: [.cookie: short.cookie])
            #expect(withoutToken.status == .forbidden || withoutToken.status == .seeOther, "a cross-site post cannot sign anybody out")
        }
    }

    /// M12: answers to a key never carry more than its scopes may read: no order through a PATCH without
    /// `orders:read`, no link without it, and no device token without `order-tokens:read`.
    @Test func m12_scopesMeanWhatTheySay() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let created = try await client.createOrder()
            let (token, path) = (created.token, created.path)
            func key(_ scopes: [String]) async throws -> String {
                try await RestrictedKeyTests.createKey(
                    client, ["name": .string(scopes.joined(separator: " ")), "scopes": .array(scopes.map(JSONValue.string))]
                )
                .secret
            }
            func missing(_ reply: Client.Reply) -> String? {
                reply.status == .forbidden && reply.json["error"]?["code"] == "scope_missing" ? reply.json["error"]?["message"]?.stringValue : nil
            }

            // A carrier with fulfillments:write alone: the update's outcome, never the order.
            let carrier = try await key(["fulfillments:write"])
            let empty = try await RestrictedKeyTests.call(client, carrier, .patch, path, json: [:])
            #expect(empty.status == .ok && empty.json["changed"] == false && empty.json["version"] == 1, "\(empty.text)")
            #expect(empty.json["order"] == nil && !empty.text.contains(token) && !empty.text.contains("merchant"), "\(empty.text)")
            let tracking = try await RestrictedKeyTests.call(
                client, carrier, .patch, path, json: ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "onTheWay"]]])
            #expect(tracking.status == .ok && tracking.json["changed"] == true && tracking.json["order"] == nil, "\(tracking.text)")
            #expect(tracking.headers[.eTag] == "\"2\"")
            #expect(missing(try await RestrictedKeyTests.call(client, carrier, .get, path)) != nil)

            // Making a link is reading the order.
            let linker = try await key(["wallet-links:write"])
            let refusedLink = try await RestrictedKeyTests.call(client, linker, .post, path + "/wallet-link", json: [:])
            #expect(missing(refusedLink)?.contains("orders:read") == true, "\(refusedLink.text)")
            let reader = try await key(["wallet-links:write", "orders:read"])
            #expect(try await RestrictedKeyTests.call(client, reader, .post, path + "/wallet-link", json: [:]).status == .created)

            // The device token only with order-tokens:read: in answers, and for the package that carries it.
            let read = try await RestrictedKeyTests.call(client, reader, .get, path)
            #expect(read.status == .ok && read.json["order"]?["orderNumber"] != nil && read.json["order"]?["authenticationToken"] == nil)
            let listed = try await RestrictedKeyTests.call(client, reader, .get, "/api/v1/orders")
            #expect(listed.status == .ok && !listed.text.contains(token))
            let writer = try await key(["orders:write"])
            let patched = try await RestrictedKeyTests.call(client, writer, .patch, path, json: ["statusDescription": "Packed"])
            #expect(patched.status == .ok && patched.json["order"]?["statusDescription"] == "Packed" && !patched.text.contains(token))
            let package = try await RestrictedKeyTests.call(client, reader, .get, path + "/package")
            #expect(missing(package)?.contains("order-tokens:read") == true, "\(package.text)")
            let trusted = try await key(["orders:read", "order-tokens:read"])
            #expect(try await RestrictedKeyTests.call(client, trusted, .get, path).json["order"]?["authenticationToken"] == .string(token))
            #expect(try await RestrictedKeyTests.call(client, trusted, .get, path + "/package").status == .ok)
            #expect(try await client.merchant(.get, path).json["order"]?["authenticationToken"] == .string(token), "a secret key reads all")
        }
    }
}
