import CarrierTestSupport
import CarrierTracking
import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackDashboard

/// The dashboard's Carriers page (#31): connecting a provider through the service the merchant API uses, its refusals
/// shown beside their fields with nothing stored, the webhook URL (never the secret), deleting with the page's CSRF
/// token only, recent events with their state and matched order, and one merchant never seeing or deleting another's.
@Suite(.serialized) struct DashboardCarriersTests {
    /// Posts the connect form as a browser does; `csrf` nil leaves the token out.
    static func connect(_ client: Client, _ browser: DashboardTests.Browser, csrf: String?, _ fields: [String: String]) async throws -> Client.Reply {
        var fields = fields
        if let csrf { fields["csrf"] = csrf }
        let (formHeaders, body) = DashboardTests.form(fields)
        var headers = formHeaders
        headers[.cookie] = browser.cookie
        return try await client.call(.post, "/dashboard/carriers", headers: headers, body: body)
    }

    /// The merchant's connections as `GET /api/v1/carrier-connections` lists them.
    static func listed(_ client: Client, key: String? = nil) async throws -> [JSONValue] {
        let reply = try await RestrictedKeyTests.call(client, key ?? client.apiKey, .get, "/api/v1/carrier-connections")
        return reply.json["data"]?.arrayValue ?? []
    }

    /// The connection id a successful connect redirected to.
    static func connectedID(_ reply: Client.Reply) throws -> String {
        #expect(reply.status == .seeOther, "\(reply.text)")
        let location = try #require(reply.headers[.location])
        #expect(location.hasPrefix("/dashboard/carriers?connected=cc_"))
        return String(try #require(location.split(separator: "=").last))
    }

    /// `text` as the page's templates escape it.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }

    @Test func theFormOffersEveryProviderTheServerKnows() {
        #expect(CarriersPage.providers.map(\.value) == CarrierProvider.allCases.map(\.rawValue))
    }

    @Test func statusMapLinesReadAsTheAPIsObject() throws {
        #expect(
            try CarriersPage.statusMap(" \n# a comment\nInTransit = onTheWay\r\nException/lost=issue \n") == [
                "InTransit": "onTheWay", "Exception/lost": "issue",
            ])
        #expect(try CarriersPage.statusMap("  \n") == nil)
        #expect(throws: CarriersPage.StatusMapSyntaxError.self) { try CarriersPage.statusMap("InTransit onTheWay") }
        #expect(throws: CarriersPage.StatusMapSyntaxError.self) { try CarriersPage.statusMap("InTransit =") }
        #expect(throws: CarriersPage.StatusMapSyntaxError.self) { try CarriersPage.statusMap("a = issue\na = none") }
    }

    @Test func aConnectionMadeOnThePageShowsItsWebhookURLAndNeverItsSecret() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let empty = try await client.call(.get, "/dashboard/carriers", headers: [.cookie: browser.cookie])
            #expect(empty.status == .ok)
            #expect(empty.headers[.contentSecurityPolicy] == DashboardTests.contentSecurityPolicy)
            #expect(empty.text.contains("<h1>Carriers</h1>") && empty.text.contains(#"<a href="/dashboard/carriers">Carriers</a>"#))
            #expect(empty.text.contains("No connection yet") && empty.text.contains("No events yet"))

            let forged = try await Self.connect(client, browser, csrf: nil, ["provider": "generic", "secret": "generic-secret-1"])
            #expect(forged.status == .forbidden)
            let stolen = try await Self.connect(client, browser, csrf: "wrong", ["provider": "generic", "secret": "generic-secret-1"])
            #expect(stolen.status == .forbidden)
            #expect(try await Self.listed(client).isEmpty, "a form without the page's token makes nothing")

            let made = try await Self.connect(
                client, browser, csrf: browser.csrfToken,
                ["provider": "generic", "secret": "generic-secret-1", "statusMap": "arrived = delivered\n", "jwksURL": ""])
            let id = try Self.connectedID(made)
            let listed = try await Self.listed(client)
            #expect(listed.compactMap { $0["id"]?.stringValue } == [id], "the API lists the page's connection")
            #expect(listed.first?["statusMap"] == ["arrived": "delivered"])
            let webhookURL = "\(TestServer.publicURL)/carriers/generic/\(id)"
            #expect(listed.first?["webhookURL"] == .string(webhookURL))

            let page = try await client.call(.get, "/dashboard/carriers?connected=\(id)", headers: [.cookie: browser.cookie])
            #expect(page.status == .ok)
            #expect(page.text.contains("Connected to Generic. Paste this webhook URL into Generic:"))
            #expect(page.text.contains(#"<code class="webhook-url" id="connected-url">\#(webhookURL)</code>"#))
            #expect(page.text.contains(Self.escaped(try #require(CarriersPage.provider("generic")?.hint))))
            #expect(page.text.contains(#"<span class="mono">\#(id)</span>"#) && page.text.contains("1 status override<"))
            #expect(!page.text.contains("generic-secret-1"), "the secret is never shown")

            // A ShipEngine connection needs no secret: the form's empty field is none.
            let shipEngine = try await Self.connect(
                client, browser, csrf: browser.csrfToken, ["provider": "shipengine", "secret": "", "jwksURL": "https://api.shipengine.com/jwks"])
            let shipEngineID = try Self.connectedID(shipEngine)
            #expect(try await Self.listed(client).compactMap { $0["id"]?.stringValue } == [id, shipEngineID])
            let announced = try await client.call(.get, "/dashboard/carriers?connected=\(shipEngineID)", headers: [.cookie: browser.cookie])
            #expect(announced.text.contains("Connected to ShipEngine."))
        }
    }

    @Test func refusalsAreShownBesideTheirFieldAndStoreNothing() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            // The form's fields, the element its refusal shows in, and the API body that the service refuses alike.
            let cases: [([String: String], String, JSONValue?)] = [
                (["provider": "aftership", "secret": ""], "carrier-secret-error", ["provider": "aftership"]),
                (["provider": "fedex", "secret": "s"], "carrier-provider-error", ["provider": "fedex", "secret": "s"]),
                (
                    ["provider": "shipengine", "jwksURL": "https://keys.attacker.example/jwks"], "carrier-jwks-error",
                    ["provider": "shipengine", "jwksURL": "https://keys.attacker.example/jwks"]
                ),
                (
                    ["provider": "aftership", "secret": "s", "statusMap": "InTransit = flying"], "carrier-status-map-error",
                    ["provider": "aftership", "secret": "s", "statusMap": ["InTransit": "flying"]]
                ),
                (["provider": "aftership", "secret": "s", "statusMap": "InTransit: onTheWay"], "carrier-status-map-error", nil),
            ]
            for (fields, errorElement, apiBody) in cases {
                let refused = try await Self.connect(client, browser, csrf: browser.csrfToken, fields)
                #expect(refused.status == .badRequest, "\(fields)")
                let shown = try #require(
                    refused.text.range(of: #"id="\#(errorElement)">[^<]+<"#, options: .regularExpression).map { String(refused.text[$0]) },
                    "\(fields): no message at \(errorElement)")
                if let apiBody {
                    let api = try await CarrierConnectionTests.connect(client, apiBody)
                    let message = try #require(api.json["error"]?["message"]?.stringValue)
                    #expect(shown.contains(Self.escaped(message)), "the page says what the API says: \(shown) / \(message)")
                } else {
                    #expect(shown.contains("line 1 is not providerStatus = walletStatus"))
                }
                #expect(refused.text.contains(#"aria-invalid="true""#))
                if let jwksURL = fields["jwksURL"] { #expect(refused.text.contains(#"value="\#(jwksURL)""#), "the entry is kept") }
                if let statusMap = fields["statusMap"] { #expect(refused.text.contains(">\(statusMap)</textarea>"), "the entry is kept") }
                if let secret = fields["secret"], !secret.isEmpty { #expect(!refused.text.contains(#"value="\#(secret)""#)) }
            }
            #expect(try await Self.listed(client).isEmpty, "nothing was stored")
        }
    }

    @Test func deletingNeedsTheTokenAndAnotherMerchantNeitherSeesNorDeletes() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let owner = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let id = try Self.connectedID(
                try await Self.connect(client, owner, csrf: owner.csrfToken, ["provider": "easypost", "secret": "easypost-secret"]))
            let webhookPath = "/carriers/easypost/\(id)"

            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let other = try await DashboardTests.signIn(client, apiKey: otherKey)
            let otherPage = try await client.call(.get, "/dashboard/carriers?connected=\(id)", headers: [.cookie: other.cookie])
            #expect(otherPage.status == .ok && !otherPage.text.contains(id), "another merchant's connection is not shown, even named")
            let (formHeaders, otherForm) = DashboardTests.form(["csrf": other.csrfToken])
            var otherHeaders = formHeaders
            otherHeaders[.cookie] = other.cookie
            let foreign = try await client.call(.post, "/dashboard/carriers/\(id)/delete", headers: otherHeaders, body: otherForm)
            #expect(foreign.status == .notFound)
            #expect(try await Self.listed(client).count == 1, "still there")

            var ownerHeaders = formHeaders
            ownerHeaders[.cookie] = owner.cookie
            let unsigned = try await client.call(.post, "/dashboard/carriers/\(id)/delete", headers: ownerHeaders, body: DashboardTests.form([:]).1)
            #expect(unsigned.status == .forbidden)
            let withOthersToken = try await client.call(.post, "/dashboard/carriers/\(id)/delete", headers: ownerHeaders, body: otherForm)
            #expect(withOthersToken.status == .forbidden)
            // The webhook route has read the connection (and keeps it in memory): the delete must forget it at once.
            let before = try await client.call(.post, webhookPath, body: Array("{}".utf8))
            #expect(before.status == .unauthorized)

            let (_, ownForm) = DashboardTests.form(["csrf": owner.csrfToken])
            let deleted = try await client.call(.post, "/dashboard/carriers/\(id)/delete", headers: ownerHeaders, body: ownForm)
            #expect(deleted.status == .seeOther)
            #expect(deleted.headers[.location] == "/dashboard/carriers?deleted=\(id)")
            #expect(try await Self.listed(client).isEmpty)
            let after = try await client.call(.post, webhookPath, body: Array("{}".utf8))
            #expect(after.status == .notFound, "the deleted connection's URL answers 404 at once")
            let page = try await client.call(.get, "/dashboard/carriers?deleted=\(id)", headers: [.cookie: owner.cookie])
            #expect(page.text.contains("Connection \(id) deleted") && page.text.contains("No connection yet"))
        }
    }

    @Test func recentEventsShowTheirStateAndLinkTheMatchedOrder() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let order = try await client.createOrder(CarrierWorkerTests.order(trackingNumber: "LX123456789DE"))
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let secret = "generic-secret-2"
            let id = try Self.connectedID(
                try await Self.connect(client, browser, csrf: browser.csrfToken, ["provider": "generic", "secret": secret]))
            let scan = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))
            // Posted to the webhook URL signed as a 3PL signs them: one for the order's parcel, one for a parcel no
            // fulfillment has yet.
            for event in [
                CarrierWorkerTests.event(trackingNumber: "LX123456789DE", status: "onTheWay", at: scan),
                CarrierWorkerTests.event(trackingNumber: "ZZ000000001", status: "onTheWay", at: scan.addingTimeInterval(60)),
            ] {
                let body = event.serialized()
                let t = String(Int(Date().timeIntervalSince1970))
                let signature = try OpenSSLHMAC.hex(key: secret, message: Array("\(t).".utf8) + body)
                let reply = try await client.call(
                    .post, "/carriers/generic/\(id)",
                    headers: [.contentType: "application/json", HTTPField.Name("OrderTrack-Signature")!: "t=\(t),v1=\(signature)"],
                    body: body)
                #expect(reply.status == .accepted, "\(reply.text)")
            }
            var events: [CarrierEventRecord] = []
            try await Poll.until(timeout: .seconds(20)) {
                events = try await client.store.recentCarrierEvents(merchantID: merchantID, limit: 10)
                return events.count == 2 && events.allSatisfy { $0.state != .pending }
            }
            #expect(events.map(\.state) == [.unmatched, .applied], "\(events.map(\.outcome))")

            let page = try await client.call(.get, "/dashboard/carriers", headers: [.cookie: browser.cookie])
            let applied = try #require(page.text.range(of: "LX123456789DE"))
            let unmatched = try #require(page.text.range(of: "ZZ000000001"))
            #expect(unmatched.lowerBound < applied.lowerBound, "newest first")
            #expect(page.text.contains(#"<tr class="unmatched">"#) && page.text.contains(#"<span class="badge badge-amber">Unmatched</span>"#))
            #expect(page.text.contains("1 waiting for a tracking number"))
            #expect(page.text.contains(#"<span class="badge badge-green">Applied</span>"#))
            #expect(page.text.contains(Self.escaped(try #require(events.last?.outcome))))
            #expect(page.text.contains(#"<a href="/dashboard/orders/\#(order.type)/\#(order.id)">\#(order.id)</a>"#))
            #expect(!page.text.contains("data-events") && !page.text.contains("live-refresh.js"), "the page subscribes to no order stream")

            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let other = try await DashboardTests.signIn(client, apiKey: otherKey)
            let otherPage = try await client.call(.get, "/dashboard/carriers", headers: [.cookie: other.cookie])
            #expect(!otherPage.text.contains("LX123456789DE") && !otherPage.text.contains("ZZ000000001") && !otherPage.text.contains(id))
        }
    }
}
