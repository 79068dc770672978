import Crypto
import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import OrderSigning
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// Issue #20: a merchant hands its carrier a restricted key that can do exactly the carrier's job (update tracking of
/// one order type and read those orders), every change is attributable in the order's history, and keys expire, are
/// revoked and rotate. Real HTTP over loopback, on the suite's store (SQLite or PostgreSQL).
@Suite(.serialized) struct RestrictedKeyTests {
    static let pushToken = String(repeating: "ab", count: 32)
    static let otherOrderType = "order.com.example.partner.other"

    /// A call with `key` (Bearer), a JSON body if given.
    static func call(_ client: Client, _ key: String, _ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil) async throws
        -> Client.Reply
    {
        var headers: HTTPFields = [.authorization: "Bearer \(key)"]
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.call(method, path, headers: headers, body: json?.serialized())
    }

    /// Creates a key with the merchant's secret key; returns its id and secret.
    static func createKey(_ client: Client, _ body: JSONValue, with key: String? = nil) async throws -> (id: String, secret: String) {
        let created = try await call(client, key ?? client.apiKey, .post, "/api/v1/api-keys", json: body)
        #expect(created.status == .created, "\(created.text)")
        return (try #require(created.json["id"]?.stringValue), try #require(created.json["secret"]?.stringValue))
    }

    /// Gives `merchantID` a second order type with a development identity.
    static func addOrderType(_ client: Client, _ server: TestServer, merchantID: String, _ orderType: String) async throws {
        let directory = server.dataDirectory.appendingPathComponent("identities/\(orderType)", isDirectory: true)
        _ = try DevelopmentIdentity.create(orderTypeIdentifier: orderType, in: directory)
        try await Administration(store: client.store, trust: .development).setOrderType(
            merchantID: merchantID, orderTypeIdentifier: orderType, identity: .directory(path: directory.path))
    }

    /// The error envelope's code and message.
    static func error(_ reply: Client.Reply) -> (code: String, message: String) {
        (reply.json["error"]?["code"]?.stringValue ?? "", reply.json["error"]?["message"]?.stringValue ?? "")
    }

    @Test func aPartnerKeyUpdatesTrackingAndNothingElseAndTheHistoryNamesEachKey() async throws {
        let apns = try await LocalAPNs.start()
        let server = try TestServer(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let type = client.credentials.orderTypeIdentifier
            try await Self.addOrderType(client, server, merchantID: merchantID, Self.otherOrderType)
            // With two order types, orders name theirs.
            var content = SampleContent.order
            content["orderTypeIdentifier"] = .string(type)
            let created = try await client.merchant(.post, "/api/v1/orders", json: content)
            #expect(created.status == .created, "\(created.text)")
            let details = try #require(created.json["orderDetails"])
            let (id, token) = (try #require(details["orderIdentifier"]?.stringValue), try #require(details["authenticationToken"]?.stringValue))
            let registered = try await client.device(
                .post, "/wallet/v1/devices/dev-1/registrations/\(type)/\(id)", token: token, json: ["pushToken": .string(Self.pushToken)])
            #expect(registered.status == .created)
            var otherContent = SampleContent.order
            otherContent["orderTypeIdentifier"] = .string(Self.otherOrderType)
            let other = try await client.merchant(.post, "/api/v1/orders", json: otherContent)
            #expect(other.status == .created, "\(other.text)")
            let otherID = try #require(other.json["orderDetails"]?["orderIdentifier"]?.stringValue)

            // Another merchant's order, of its own order type.
            let (merchantB, keyB) = try await Administration(store: client.store).createMerchant(name: "Merchant B")
            try await Self.addOrderType(client, server, merchantID: merchantB.id, "order.com.example.merchantb")
            var contentB = SampleContent.order
            contentB["orderTypeIdentifier"] = "order.com.example.merchantb"
            let orderB = try await Self.call(client, keyB, .post, "/api/v1/orders", json: contentB)
            #expect(orderB.status == .created, "\(orderB.text)")
            let idB = try #require(orderB.json["orderDetails"]?["orderIdentifier"]?.stringValue)

            let partner = try await Self.createKey(
                client, ["name": "carrier", "scopes": ["orders:read", "fulfillments:write"], "orderTypeIdentifiers": [.string(type)]])
            #expect(partner.secret.hasPrefix("rk_"))
            let listed = try await client.merchant(.get, "/api/v1/api-keys")
            let partnerListed = try #require(listed.json["data"]?.arrayValue?.first { $0["id"]?.stringValue == partner.id })
            #expect(partnerListed["scopes"] == ["fulfillments:write", "orders:read"] && partnerListed["orderTypeIdentifiers"] == [.string(type)])
            #expect(!listed.text.contains(partner.secret) && !listed.text.contains(Self.storedHash(partner.secret)), "never the secret or its hash")

            // The carrier's job: tracking of an existing fulfillment. The registered device gets the push.
            let tracking: JSONValue = [
                "fulfillments": [
                    [
                        "fulfillmentIdentifier": "ship-1", "status": "onTheWay", "carrier": "UPS", "trackingNumber": "1Z999AA10123456784",
                        "trackingURL": "https://www.ups.com/track?tracknum=1Z999AA10123456784",
                    ]
                ]
            ]
            let shipped = try await Self.call(client, partner.secret, .patch, "/api/v1/orders/\(type)/\(id)", json: tracking)
            #expect(shipped.status == .ok, "\(shipped.text)")
            let pushes = try await apns.server.waitForPushes(count: 1, timeout: .seconds(20))
            #expect(pushes.map(\.deviceToken) == [Self.pushToken] && pushes.first?.topic == type)
            #expect(try await Self.call(client, partner.secret, .get, "/api/v1/orders/\(type)/\(id)").status == .ok)

            // Everything else is refused, each naming its rule, and nothing is written.
            let refusals: [(HTTPRequest.Method, String, JSONValue?, HTTPResponse.Status, String, String)] = [
                (.patch, "/api/v1/orders/\(type)/\(id)", ["status": "completed"], .forbidden, "change_not_allowed", "/status"),
                (.patch, "/api/v1/orders/\(type)/\(id)", ["payment": ["status": "refunded"]], .forbidden, "change_not_allowed", "/payment/status"),
                (
                    .patch, "/api/v1/orders/\(type)/\(id)", ["lineItems": [["title": "Free", "quantity": 1]]], .forbidden, "change_not_allowed",
                    "/lineItems/0"
                ),
                (
                    .patch, "/api/v1/orders/\(type)/\(id)", ["merchant": ["displayName": "Not the shop"]], .forbidden, "change_not_allowed",
                    "/merchant/displayName"
                ),
                (
                    .patch, "/api/v1/orders/\(type)/\(id)",
                    ["fulfillments": [["fulfillmentIdentifier": "ship-1", "recipient": ["givenName": "Mallory"]]]], .forbidden,
                    "change_not_allowed", "/fulfillments/0/recipient"
                ),
                (
                    .patch, "/api/v1/orders/\(type)/\(id)",
                    ["fulfillments": [["fulfillmentIdentifier": "ship-2", "fulfillmentType": "shipping", "status": "open"]]], .forbidden,
                    "change_not_allowed", "/fulfillments/1"
                ),
                (.put, "/api/v1/assets/logo.png", nil, .forbidden, "scope_missing", "\"assets:write\""),
                (.put, "/api/v1/order-types/\(type)", ["pkcs12": "AA==", "password": ""], .forbidden, "scope_missing", "\"order-types:write\""),
                (.post, "/api/v1/orders", content, .forbidden, "scope_missing", "\"orders:write\""),
                (.post, "/api/v1/orders/\(type)/\(id)/notify", nil, .forbidden, "scope_missing", "\"orders:notify\""),
                (.post, "/api/v1/api-keys", ["name": "mine", "scopes": ["orders:write"]], .forbidden, "scope_missing", "\"api-keys:write\""),
                (.get, "/api/v1/orders/\(Self.otherOrderType)/\(otherID)", nil, .forbidden, "order_type_not_allowed", Self.otherOrderType),
                (
                    .patch, "/api/v1/orders/\(Self.otherOrderType)/\(otherID)", tracking, .forbidden, "order_type_not_allowed",
                    Self.otherOrderType
                ),
                (.get, "/api/v1/orders?orderTypeIdentifier=\(Self.otherOrderType)", nil, .forbidden, "order_type_not_allowed", Self.otherOrderType),
            ]
            for (method, path, body, status, code, named) in refusals {
                let reply = try await Self.call(client, partner.secret, method, path, json: body)
                let (replyCode, message) = Self.error(reply)
                #expect(reply.status == status && replyCode == code && message.contains(named), "\(method) \(path): \(reply.status) \(reply.text)")
            }
            // Another merchant's order: the key's merchant has no such order (404, as for a secret key), even for a key
            // without an order-type limit.
            let unlimited = try await Self.createKey(client, ["name": "carrier 2", "scopes": ["orders:read", "fulfillments:write"]])
            for method in [HTTPRequest.Method.get, .patch] {
                let reply = try await Self.call(
                    client, unlimited.secret, method, "/api/v1/orders/order.com.example.merchantb/\(idB)", json: method == .patch ? tracking : nil)
                #expect(reply.status == .notFound && Self.error(reply).code == "not_found", "\(method): \(reply.text)")
            }
            let untouched = try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)")
            #expect(untouched.json["order"]?["status"] == "open" && untouched.json["order"]?["payment"]?["status"] == "paid")
            #expect(untouched.json["order"]?["fulfillments"]?.arrayValue?.count == 1)

            // The merchant's own change, then the history: newest first, each change with its key, address and diff.
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["status": "completed"]).status == .ok)
            let merchantKey = try #require(
                try await client.store.apiKeys(merchantID: merchantID).first { $0.scopes == nil && $0.revokedAt == nil })
            let history = try await Self.call(client, partner.secret, .get, "/api/v1/orders/\(type)/\(id)/history")
            #expect(history.status == .ok, "\(history.text)")
            let changes = try #require(history.json["data"]?.arrayValue)
            #expect(changes.count == 3, "\(history.text)")
            #expect(changes.map { $0["keyId"]?.stringValue } == [merchantKey.id, partner.id, merchantKey.id])
            #expect(changes.map { $0["keyName"]?.stringValue } == ["secret key", "carrier", "secret key"])
            #expect(changes.allSatisfy { $0["address"]?.stringValue == "127.0.0.1" && $0["at"]?.stringValue != nil })
            #expect(changes[0]["diff"]?["/status"] == ["from": "open", "to": "completed"])
            #expect(changes[1]["diff"]?["/fulfillments/0/trackingNumber"] == ["to": "1Z999AA10123456784"])
            #expect(changes[1]["diff"]?["/fulfillments/0/status"] == ["from": "processing", "to": "onTheWay"])
            #expect(changes[1]["diff"]?["/status"] == nil)
            #expect(changes[2]["diff"]?[""]?["to"]?["orderNumber"] == content["orderNumber"], "a creation's diff is the whole order")
            #expect(!history.text.contains(token), "the history never shows the authentication token")
            // The merchant's history page limit is checked like the push log's.
            #expect(try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)/history?limit=0").status == .badRequest)
            #expect(try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)/history?limit=1").json["data"]?.arrayValue?.count == 1)
            // The partner's use is recorded (written behind, at most once a minute), the unused key has none.
            var partnerLastUse: String?
            try await Poll.until(timeout: .seconds(30), every: .milliseconds(100)) {
                let keys = try await client.merchant(.get, "/api/v1/api-keys").json["data"]?.arrayValue ?? []
                partnerLastUse = keys.first { $0["id"]?.stringValue == partner.id }?["lastUsedAt"]?.stringValue
                return partnerLastUse != nil
            }
            #expect(partnerLastUse != nil, "the partner key's use is listed within 10 s")
            let fresh = try await Self.createKey(client, ["name": "unused", "scopes": ["orders:read"]])
            let listedAgain = try await client.merchant(.get, "/api/v1/api-keys").json["data"]?.arrayValue ?? []
            #expect(listedAgain.first { $0["id"]?.stringValue == fresh.id }?["lastUsedAt"] == JSONValue.null)
        }
        try await apns.stop()
    }

    @Test func expiredRevokedAndRotatedAwaySecretsAre401() async throws {
        let clock = TestClock()
        var server = try TestServer()
        server.now = { clock.date }
        defer { server.remove() }
        try await server.run { client in
            let list = "/api/v1/orders"
            let expiring = try await Self.createKey(
                client, ["name": "temp", "scopes": ["orders:read"], "expiresAt": .string(DateTimeFormat.formatRFC3339(clock.date + 3600))])
            #expect(try await Self.call(client, expiring.secret, .get, list).status == .ok)
            clock.advance(by: .seconds(3601))
            let expired = try await Self.call(client, expiring.secret, .get, list)
            #expect(expired.status == .unauthorized && Self.error(expired).message.contains("expired"), "\(expired.text)")

            let revocable = try await Self.createKey(client, ["name": "revocable", "scopes": ["orders:read"]])
            #expect(try await Self.call(client, revocable.secret, .get, list).status == .ok)
            let revoked = try await client.merchant(.delete, "/api/v1/api-keys/\(revocable.id)")
            #expect(revoked.status == .ok && revoked.json["revokedAt"]?.stringValue != nil, "\(revoked.text)")
            let afterRevocation = try await Self.call(client, revocable.secret, .get, list)
            #expect(afterRevocation.status == .unauthorized && Self.error(afterRevocation).message.contains("revoked"))

            // A key rotates itself: the new secret works, the old one is 401 at once.
            let rotating = try await Self.createKey(client, ["name": "rotating", "scopes": ["orders:read"]])
            let other = try await Self.createKey(client, ["name": "other", "scopes": ["orders:read"]])
            let foreign = try await Self.call(client, rotating.secret, .post, "/api/v1/api-keys/\(other.id)/rotate")
            #expect(foreign.status == .forbidden && Self.error(foreign).code == "scope_missing", "a restricted key rotates only itself")
            let rotated = try await Self.call(client, rotating.secret, .post, "/api/v1/api-keys/\(rotating.id)/rotate")
            #expect(rotated.status == .ok && rotated.json["id"]?.stringValue == rotating.id, "\(rotated.text)")
            let newSecret = try #require(rotated.json["secret"]?.stringValue)
            #expect(newSecret != rotating.secret && rotated.json["scopes"] == ["orders:read"])
            #expect(try await Self.call(client, rotating.secret, .get, list).status == .unauthorized)
            #expect(try await Self.call(client, newSecret, .get, list).status == .ok)
            // A revoked key cannot be rotated back to life.
            #expect(try await client.merchant(.post, "/api/v1/api-keys/\(revocable.id)/rotate").status == .notFound)

            // Bad requests name their field.
            let refusals: [(JSONValue, String)] = [
                (["name": "x", "scopes": ["orders:delete"]], "scopes"), (["name": "x", "scopes": []], "scopes"),
                (["name": "x", "scopes": ["api-keys:write"]], "scopes"), (["name": "", "scopes": ["orders:read"]], "name"),
                (["name": "x", "scopes": ["orders:read"], "orderTypeIdentifiers": ["order.com.someone.else"]], "orderTypeIdentifiers"),
                (["name": "x", "scopes": ["orders:read"], "expiresAt": "2000-01-01T00:00:00Z"], "expiresAt"),
                (["name": "x", "scopes": ["orders:read"], "expiresAt": "tomorrow"], "expiresAt"), (["name": "x"], "scopes"),
                (["name": "x", "scopes": ["orders:read"], "admin": true], "admin"),
            ]
            for (body, field) in refusals {
                let reply = try await client.merchant(.post, "/api/v1/api-keys", json: body)
                #expect(reply.status == .badRequest && reply.json["error"]?["param"]?.stringValue == field, "\(body): \(reply.text)")
            }
            // apple-pay:* stands for both Apple Pay scopes.
            let applePay = try await client.merchant(.post, "/api/v1/api-keys", json: ["name": "checkout", "scopes": ["apple-pay:*"]])
            #expect(applePay.json["scopes"] == ["apple-pay:identities", "apple-pay:payments"])
        }
    }

    @Test func aRestrictedKeyCannotSignInToTheDashboard() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let partner = try await Self.createKey(client, ["name": "carrier", "scopes": ["orders:read"]])
            let (headers, body) = DashboardTests.form(["api_key": partner.secret])
            let reply = try await client.call(.post, "/dashboard/sign-in", headers: headers, body: body)
            #expect(reply.status == .unauthorized)
            #expect(reply.text.contains("Restricted keys (rk_…) cannot sign in; use a secret key (sk_…)."), "\(reply.text)")
            // The merchant's secret key still signs in.
            _ = try await DashboardTests.signIn(client, apiKey: client.apiKey)
        }
    }
}

extension RestrictedKeyTests {
    /// The SHA-256 the store keeps of a secret, to prove no listing shows it.
    static func storedHash(_ secret: String) -> String { SHA256.hash(data: Array(secret.utf8)).map { String(format: "%02x", $0) }.joined() }
}
