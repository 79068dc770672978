import Foundation
import HTTPTypes
import OrderModel
import OrderTrackServer
import OrderZip
import QRCode
import ServerTestSupport
import TestSupport
import Testing

/// A merchant integration written against a payment provider's documentation, unchanged: its simplified order form,
/// its web-service paths (`/v1/packages`, `/v1/push`) and its notify call; and Track in Wallet links.
// Serialized: the integration test waits for real pushes through the mock APNs.
@Suite(.serialized) struct ProviderCompatibilityTests {
    static let device = String(repeating: "ab", count: 32)

    /// The order as the provider's documentation shows it (without its own order type, which the merchant maps to its
    /// OrderTrack order type, and without updatedAt, which OrderTrack sets).
    static var providerOrder: JSONValue {
        [
            "order": [
                "orderIdentifier": "ORDER-20240101-001", "status": "open", "statusDescription": "Your order has been received.",
                "merchant": ["merchantIdentifier": "merchant.com.example", "displayName": "Example Store", "url": "https://example.com"],
                "lineItems": [["label": "Blue T-Shirt (M)", "sku": "TSHIRT-BLUE-M", "quantity": 2, "price": "29.99", "currencyCode": "USD"]],
                "total": ["label": "Total", "price": "59.98", "currencyCode": "USD"],
                "fulfillments": [
                    [
                        "fulfillmentIdentifier": "SHIP-001", "status": "open", "statusDescription": "Preparing your order.", "trackingNumber": "",
                        "trackingUrl": "",
                    ]
                ],
            ]
        ]
    }

    static let defaults: JSONValue = ["orderManagementURL": "https://example.com/orders", "fulfillmentType": "shipping", "paymentStatus": "paid"]

    static func warningPaths(_ reply: Client.Reply) -> Set<String> {
        Set((reply.json["warnings"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue })
    }

    static func orderJSON(in package: [UInt8]) throws -> JSONValue {
        let file = try #require(try ZipReader.read(package).first { $0.name == "order.json" })
        return try JSONValue.parse(file.data)
    }

    @Test func aProviderIntegrationWorksUnchanged() async throws {
        let apns = try await LocalAPNs.start()
        let server = try TestServer(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            #expect(try await client.merchant(.put, "/api/v1/order-defaults", json: Self.defaults).json == Self.defaults)

            let created = try await client.merchant(.post, "/api/v1/orders", json: Self.providerOrder)
            #expect(created.status == .created)
            #expect(
                Self.warningPaths(created).isSuperset(of: [
                    "order", "lineItems[0].label", "lineItems[0].price", "total", "payment.status", "fulfillments[0].trackingNumber",
                    "fulfillments[0].trackingUrl", "fulfillments[0].fulfillmentType", "orderManagementURL",
                ]))
            let order = try #require(created.json["order"])
            #expect(order["lineItems"]?.arrayValue?.first?["title"] == "Blue T-Shirt (M)")
            #expect(order["lineItems"]?.arrayValue?.first?["price"] == ["amount": .number("29.99"), "currency": "USD"])
            #expect(order["payment"] == ["total": ["amount": .number("59.98"), "currency": "USD"], "status": "paid"])
            #expect(order["total"] == nil)
            #expect(order["fulfillments"]?.arrayValue?.first?["trackingNumber"] == nil)
            let details = try #require(created.json["orderDetails"])
            let (type, id) = (try #require(details["orderTypeIdentifier"]?.stringValue), try #require(details["orderIdentifier"]?.stringValue))
            let token = try #require(details["authenticationToken"]?.stringValue)
            #expect(id == "ORDER-20240101-001")

            // The device: registered through the provider's path, fetching through the provider's path.
            #expect(try await client.device(.post, "/wallet/v1/push", token: token, json: ["pushToken": .string(Self.device)]).status == .created)
            #expect(try await client.device(.post, "/wallet/v1/push", token: token, json: ["pushToken": .string(Self.device)]).status == .ok)
            #expect(
                try await client.device(.post, "/wallet/v1/push", token: "wrong-token-0123456789", json: ["pushToken": .string(Self.device)]).status
                    == .unauthorized)
            #expect(try await client.store.registrations(orderTypeIdentifier: type, orderIdentifier: id).map(\.pushToken) == [Self.device])
            let first = try await client.device(.get, "/wallet/v1/packages/\(type)/\(id)", token: token)
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "application/vnd.apple.finance.order")
            #expect(first.body == (try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: token)).body)
            #expect(try await client.device(.get, "/wallet/v1/packages/\(type)/\(id)", token: "wrong-token-0123456789").status == .unauthorized)

            // In progress with a tracking number, in the provider's words.
            let inProgress = try await client.merchant(
                .patch, "/api/v1/orders/\(type)/\(id)",
                json: [
                    "status": "in_progress",
                    "fulfillments": [
                        [
                            "fulfillmentIdentifier": "SHIP-001", "status": "open", "trackingNumber": "1Z999AA10123456784",
                            "trackingUrl": "https://carrier.example/track/1Z999AA10123456784",
                        ]
                    ],
                ])
            #expect(inProgress.status == .ok)
            #expect(Self.warningPaths(inProgress).isSuperset(of: ["status", "fulfillments[0].trackingUrl"]))
            _ = try await apns.server.waitForPushes(count: 1, timeout: .seconds(20))
            let second = try Self.orderJSON(in: try await client.device(.get, "/wallet/v1/packages/\(type)/\(id)", token: token).body)
            #expect(second["status"] == "open")
            let fulfillment = try #require(second["fulfillments"]?.arrayValue?.first)
            #expect(fulfillment["status"] == "processing")
            #expect(fulfillment["trackingURL"] == "https://carrier.example/track/1Z999AA10123456784")
            #expect(fulfillment["trackingNumber"] == "1Z999AA10123456784")

            let fulfilled = try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["status": "fulfilled"])
            #expect(
                fulfilled.json["warnings"]?.arrayValue?.contains {
                    $0["path"] == "status"
                        && $0["message"] == "\"fulfilled\" was read as \"completed\", and each unfinished fulfillment as delivered or picked up"
                } == true)
            _ = try await apns.server.waitForPushes(count: 2, timeout: .seconds(20))
            let completed = try Self.orderJSON(in: try await client.device(.get, "/wallet/v1/packages/\(type)/\(id)", token: token).body)
            #expect(completed["status"] == "completed")
            #expect(completed["fulfillments"]?.arrayValue?.first?["status"] == "delivered", "no \"Completed\" above \"Processing\"")

            // The provider's notify call, as form fields.
            let notified = try await client.call(
                .post, "/api/v1/apple_pay/order_tracking/notify",
                headers: [.authorization: "Bearer \(client.apiKey)", .contentType: "application/x-www-form-urlencoded"],
                body: Array("order_type_identifier=\(type)&order_identifier=\(id)".utf8))
            #expect(notified.status == .accepted)
            let pushes = try await apns.server.waitForPushes(count: 3, timeout: .seconds(20))
            #expect(pushes.count == 3)
            #expect(pushes.allSatisfy { $0.deviceToken == Self.device && $0.topic == type })
        }
        try await apns.stop()
    }

    @Test func withoutDefaultsTheMissingFieldsAreNamed() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let refused = try await client.merchant(.post, "/api/v1/orders", json: Self.providerOrder)
            #expect(refused.status == .unprocessableContent)
            let errors = (refused.json["error"]?["problems"]?.arrayValue ?? []).filter { $0["severity"] != "warning" }.compactMap {
                $0["path"]?.stringValue
            }
            #expect(Set(errors) == ["orderManagementURL", "payment.status", "fulfillments[0].fulfillmentType"])
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.isEmpty == true, "nothing stored")

            let validation = try await client.merchant(.post, "/api/v1/orders/validate", json: Self.providerOrder)
            #expect(validation.json["valid"] == false)
            #expect(validation.json["problems"]?.arrayValue?.contains { $0["path"] == "lineItems[0].label" && $0["severity"] == "warning" } == true)

            let badDefaults = try await client.merchant(.put, "/api/v1/order-defaults", json: ["orderManagementURL": "http://example.com"])
            #expect(badDefaults.status == .unprocessableContent)
            #expect(badDefaults.json["error"]?["param"] == "orderManagementURL")
            #expect(
                try await client.merchant(.put, "/api/v1/order-defaults", json: ["fulfillmentType": "drone"]).json["error"]?["param"]
                    == "fulfillmentType")
            #expect(try await client.merchant(.put, "/api/v1/order-defaults", json: ["colour": "red"]).status == .badRequest)

            var wrongPrice = Self.providerOrder
            wrongPrice["order"]?["total"]?["price"] = "59.989"
            #expect(try await client.merchant(.put, "/api/v1/order-defaults", json: Self.defaults).status == .ok)
            let precision = try await client.merchant(.post, "/api/v1/orders", json: wrongPrice)
            #expect(precision.status == .unprocessableContent)
            #expect(precision.json["error"]?["param"] == "payment.total.amount")
        }
    }

    @Test func appleVocabularyIsLeftAsItIs() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            _ = try await client.merchant(.put, "/api/v1/order-defaults", json: Self.defaults)
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            #expect(created.status == .created)
            #expect(created.json["warnings"] == [])
        }
    }

    @Test func walletLinksOpenThePackageUntilTheyExpireOrAreRevoked() async throws {
        let clock = TestClock()
        var server = try TestServer()
        server.now = { clock.date }
        defer { server.remove() }
        try await server.run { client in
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            let details = try #require(created.json["orderDetails"])
            let (type, id) = (try #require(details["orderTypeIdentifier"]?.stringValue), try #require(details["orderIdentifier"]?.stringValue))
            let token = try #require(details["authenticationToken"]?.stringValue)

            let link = try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/wallet-link", json: ["expiresIn": 3600])
            #expect(link.status == .created)
            let url = try #require(link.json["url"]?.stringValue)
            #expect(url.hasPrefix(TestServer.publicURL + "/track/"))
            #expect(!url.contains(token), "the link never carries the order's authenticationToken")
            let path = String(url.dropFirst(TestServer.publicURL.count))

            let opened = try await client.call(.get, path)
            #expect(opened.status == .ok)
            #expect(opened.headers[.contentType] == "application/vnd.apple.finance.order")
            #expect(opened.headers[.contentDisposition] == "inline; filename=\"\(id).order\"")
            // The order as devices get it, with a device token of the link's own in place of the order's.
            var linked = try Self.orderJSON(in: opened.body)
            #expect(linked["authenticationToken"] != .string(token))
            linked["authenticationToken"] = .string(token)
            #expect(linked == (try Self.orderJSON(in: try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: token).body)))

            // The QR code is the library's code of exactly this URL, which an independent decoder reads back.
            let qr = try await client.call(.get, path + "/qr.svg")
            #expect(qr.status == .ok)
            #expect(qr.headers[.contentType] == "image/svg+xml")
            let code = try QRCode(Array(url.utf8))
            #expect(qr.text == code.svg())
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") {
                let image = FileManager.default.temporaryDirectory.appendingPathComponent("link-\(UUID().uuidString).pgm")
                defer { try? FileManager.default.removeItem(at: image) }
                try Data(code.pgm(moduleSize: 3, quietZone: 4)).write(to: image)
                await #expect(String(decoding: try ExternalTools.run("/usr/bin/zbarimg", ["--raw", "-q", image.path]), as: UTF8.self) == url + "\n")
            }

            // Neither secret opens the other's door.
            let linkToken = String(path.dropFirst("/track/".count))
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: linkToken).status == .unauthorized)
            let byOrderToken = try await client.call(.get, "/track/\(token)")
            #expect(byOrderToken.status == .notFound)
            #expect(byOrderToken.headers[.contentType] == "text/html; charset=utf-8")

            clock.advance(by: .seconds(3601))
            let expired = try await client.call(.get, path)
            #expect(expired.status == .gone)
            #expect(expired.text.contains("This link has expired"))
            #expect(try await client.call(.get, path + "/qr.svg").status == .gone)

            let fresh = try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/wallet-link")
            #expect(fresh.json["expiresAt"]?.stringValue == DateTimeFormat.formatRFC3339(clock.date.addingTimeInterval(7 * 24 * 3600)))
            let freshPath = String(try #require(fresh.json["url"]?.stringValue).dropFirst(TestServer.publicURL.count))
            #expect(try await client.call(.get, freshPath).status == .ok)
            let revoked = try await client.merchant(.delete, "/api/v1/wallet-links/\(try #require(fresh.json["id"]?.stringValue))")
            #expect(revoked.status == .ok)
            #expect(revoked.json["revokedAt"]?.stringValue != nil)
            #expect(revoked.json["url"] == nil, "the URL is shown once")
            let gone = try await client.call(.get, freshPath)
            #expect(gone.status == .gone)
            #expect(gone.text.contains("withdrew"))

            #expect(try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/wallet-link", json: ["expiresIn": 10]).status == .badRequest)
            #expect(try await client.merchant(.post, "/api/v1/orders/\(type)/no-such-order/wallet-link").status == .notFound)
            #expect(try await client.merchant(.delete, "/api/v1/wallet-links/no-such-link").status == .notFound)

            let script = try await client.call(.get, "/js/ordertrack.js")
            #expect(script.status == .ok)
            #expect(script.headers[.accessControlAllowOrigin] == "*")
            #expect(script.text.contains("addToWallet"))
        }
    }

    @Test func anotherMerchantCannotLinkOrRevoke() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let created = try await client.createOrder()
            let (type, id) = (created.type, created.id)
            let link = try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/wallet-link")
            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let other: HTTPFields = [.authorization: "Bearer \(otherKey)"]
            #expect(try await client.call(.post, "/api/v1/orders/\(type)/\(id)/wallet-link", headers: other).status == .notFound)
            #expect(
                try await client.call(.delete, "/api/v1/wallet-links/\(try #require(link.json["id"]?.stringValue))", headers: other).status
                    == .notFound)
            let path = String(try #require(link.json["url"]?.stringValue).dropFirst(TestServer.publicURL.count))
            #expect(try await client.call(.get, path).status == .ok, "still open: the other merchant's revoke did nothing")
        }
    }
}
