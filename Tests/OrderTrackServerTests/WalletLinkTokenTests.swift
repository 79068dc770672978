import Foundation
import HTTPTypes
import Logging
import OrderModel
import OrderPersistence
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackServer

/// Audit M13: a Track in Wallet link hands out a device token of its own, never the order's, and revoking or expiring
/// the link takes that token and its registrations back; a leaked order token is rotated away. Real HTTP over loopback,
/// on the suite's store (SQLite or PostgreSQL).
// Serialized: two tests wait for real pushes through the mock APNs.
@Suite(.serialized) struct WalletLinkTokenTests {
    static let linkDevice = "link-device-0001"
    static let orderDevice = "order-device-0001"
    static let linkPushToken = String(repeating: "cd", count: 32)
    static let orderPushToken = String(repeating: "ef", count: 32)

    /// A new link to the order, opened once: its id, its path and the device token its package carries.
    static func openLink(_ client: Client, type: String, id: String, expiresIn: Int = 3600) async throws
        -> (id: String, path: String, deviceToken: String)
    {
        let link = try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/wallet-link", json: ["expiresIn": .integer(expiresIn)])
        #expect(link.status == .created, "\(link.text)")
        let path = String(try #require(link.json["url"]?.stringValue).dropFirst(TestServer.publicURL.count))
        let opened = try await client.call(.get, path)
        #expect(opened.status == .ok)
        let token = try #require(try ProviderCompatibilityTests.orderJSON(in: opened.body)["authenticationToken"]?.stringValue)
        return (try #require(link.json["id"]?.stringValue), path, token)
    }

    static func register(_ client: Client, _ device: String, _ pushToken: String, type: String, id: String, token: String) async throws
        -> HTTPResponse.Status
    {
        try await client.device(
            .post, "/wallet/v1/devices/\(device)/registrations/\(type)/\(id)", token: token, json: ["pushToken": .string(pushToken)]
        ).status
    }

    static func devices(_ client: Client, type: String, id: String) async throws -> [String] {
        try await client.store.registrations(orderTypeIdentifier: type, orderIdentifier: id).map(\.deviceLibraryIdentifier)
    }

    @Test func m13_aRevokedLinksTokenFetchesAndRegistersNothing() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, orderToken) = try await client.createOrder().details
            let link = try await Self.openLink(client, type: type, id: id)
            #expect(link.deviceToken != orderToken, "the link's package never carries the order's token")
            #expect(AuthenticationTokenStrength.weakness(of: link.deviceToken) == nil)
            #expect(try await Self.openLink(client, type: type, id: id).deviceToken != link.deviceToken, "each link has its own")

            // While the link lives its token is the order's for Wallet: fetches answer the package carrying it.
            let fetched = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: link.deviceToken)
            #expect(fetched.status == .ok)
            #expect(try ProviderCompatibilityTests.orderJSON(in: fetched.body)["authenticationToken"] == .string(link.deviceToken))
            #expect(try await client.call(.get, link.path).body == fetched.body, "built once per link and version")
            #expect(try await client.device(.get, "/wallet/v1/packages/\(type)/\(id)", token: link.deviceToken).status == .ok)
            #expect(try await Self.register(client, Self.linkDevice, Self.linkPushToken, type: type, id: id, token: link.deviceToken) == .created)
            #expect(try await Self.register(client, Self.orderDevice, Self.orderPushToken, type: type, id: id, token: orderToken) == .created)
            #expect(try await Self.devices(client, type: type, id: id) == [Self.linkDevice, Self.orderDevice])

            // It opens only the link's order.
            let (otherType, otherID, _) = try await client.createOrder().details
            #expect(try await client.device(.get, "/wallet/v1/orders/\(otherType)/\(otherID)", token: link.deviceToken).status == .unauthorized)

            let revoked = try await client.merchant(.delete, "/api/v1/wallet-links/\(link.id)")
            #expect(revoked.status == .ok)
            let refused = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: link.deviceToken)
            #expect(refused.status == .unauthorized)
            #expect(refused.json["error"]?["message"] == "missing or wrong AppleOrder authorization", "as for a wrong token")
            #expect(try await client.device(.get, "/wallet/v1/packages/\(type)/\(id)", token: link.deviceToken).status == .unauthorized)
            #expect(
                try await Self.register(client, "another-device-01", Self.linkPushToken, type: type, id: id, token: link.deviceToken) == .unauthorized
            )
            #expect(try await Self.devices(client, type: type, id: id) == [Self.orderDevice], "the link's registration went with it")
            let activity = try await client.store.orderActivity(orderTypeIdentifier: type, orderIdentifier: id, limit: 20)
            #expect(activity.contains { $0.kind == .unregistered }, "the transcript shows the device leaving")

            // A change reaches the order's own holders, not the link's.
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["orderNumber": "CHANGED-1"]).status == .ok)
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: link.deviceToken).status == .unauthorized)
            let current = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: orderToken)
            #expect(current.status == .ok)
            #expect(try ProviderCompatibilityTests.orderJSON(in: current.body)["orderNumber"] == "CHANGED-1")
        }
    }

    @Test func m13_anExpiredLinksTokenFetchesNothingAndItsRegistrationsArePruned() async throws {
        let clock = TestClock()
        var server = try TestServer()
        server.now = { clock.date }
        defer { server.remove() }
        try await server.run { client in
            let (type, id, orderToken) = try await client.createOrder().details
            let link = try await Self.openLink(client, type: type, id: id, expiresIn: 60)
            #expect(try await Self.register(client, Self.linkDevice, Self.linkPushToken, type: type, id: id, token: link.deviceToken) == .created)
            #expect(try await Self.register(client, Self.orderDevice, Self.orderPushToken, type: type, id: id, token: orderToken) == .created)

            clock.advance(by: .seconds(61))
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: link.deviceToken).status == .unauthorized)
            let push = try await client.device(.post, "/wallet/v1/push", token: link.deviceToken, json: ["pushToken": .string(Self.linkPushToken)])
            #expect(push.status == .unauthorized)
            // A registration authenticated just before the expiry and stored after it is refused by the store itself.
            await #expect(throws: OrderStoreError.walletLinkClosed(id: link.id)) {
                try await client.store.register(
                    deviceLibraryIdentifier: "late-device-0001", pushToken: Self.linkPushToken, orderTypeIdentifier: type, orderIdentifier: id,
                    walletLinkID: link.id, maximumPerOrder: nil)
            }

            let retention = RetentionService(
                store: client.store, configuration: RetentionConfiguration(), logger: Logger(label: "retention-test"),
                clock: ServerClock(date: { clock.date }, waits: clock))
            #expect(try await retention.prune(now: clock.date).walletLinkRegistrations == 1)
            #expect(try await Self.devices(client, type: type, id: id) == [Self.orderDevice])
            #expect(try await client.call(.get, link.path).status == .gone, "the link itself still answers that it expired")
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: orderToken).status == .ok)
        }
    }

    @Test func m13_aLinksTokenRegistersThroughThePushAliasAndItsDeviceGetsTheChanges() async throws {
        let apns = try await LocalAPNs.start()
        let server = try TestServer(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder().details
            let link = try await Self.openLink(client, type: type, id: id)
            let body: JSONValue = ["pushToken": .string(Self.linkPushToken)]
            #expect(try await client.device(.post, "/wallet/v1/push", token: link.deviceToken, json: body).status == .created)
            #expect(try await client.device(.post, "/wallet/v1/push", token: link.deviceToken, json: body).status == .ok)

            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["orderNumber": "CHANGED-2"]).status == .ok)
            let pushes = try await apns.server.waitForPushes(count: 1, timeout: .seconds(20))
            #expect(pushes.map(\.deviceToken) == [Self.linkPushToken])
            let changed = try await client.device(.get, "/wallet/v1/packages/\(type)/\(id)", token: link.deviceToken)
            #expect(changed.status == .ok)
            let document = try ProviderCompatibilityTests.orderJSON(in: changed.body)
            #expect(document["orderNumber"] == "CHANGED-2")
            #expect(document["authenticationToken"] == .string(link.deviceToken), "Wallet keeps the link's token")

            #expect(try await client.merchant(.delete, "/api/v1/wallet-links/\(link.id)").status == .ok)
            #expect(try await client.store.registrations(orderTypeIdentifier: type, orderIdentifier: id).isEmpty)
            #expect(try await client.device(.post, "/wallet/v1/push", token: link.deviceToken, json: body).status == .unauthorized)
        }
        try await apns.stop()
    }

    @Test func m13_rotatingTheTokenLocksOutItsHoldersAndAnswersNewOrderDetails() async throws {
        let apns = try await LocalAPNs.start()
        let server = try TestServer(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            let (type, id, oldToken) = try await client.createOrder().details
            let link = try await Self.openLink(client, type: type, id: id)
            #expect(try await Self.register(client, Self.orderDevice, Self.orderPushToken, type: type, id: id, token: oldToken) == .created)
            #expect(try await Self.register(client, Self.linkDevice, Self.linkPushToken, type: type, id: id, token: link.deviceToken) == .created)
            let path = "/api/v1/orders/\(type)/\(id)/rotate-token"

            // The scope is orders:write: a key that only reads orders and makes links may not.
            let reader = try await RestrictedKeyTests.createKey(client, ["name": "reader", "scopes": ["orders:read", "wallet-links:write"]])
            let refused = try await RestrictedKeyTests.call(client, reader.secret, .post, path)
            #expect(refused.status == .forbidden)
            #expect(RestrictedKeyTests.error(refused).code == "scope_missing")
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: oldToken).status == .ok, "nothing changed")
            let writer = try await RestrictedKeyTests.createKey(client, ["name": "writer", "scopes": ["orders:write"]])

            let rotated = try await RestrictedKeyTests.call(client, writer.secret, .post, path)
            #expect(rotated.status == .ok, "\(rotated.text)")
            #expect(rotated.headers[.eTag] == "\"2\"")
            #expect(rotated.headers[.cacheControl] == "no-store")
            let newToken = try #require(rotated.json["orderDetails"]?["authenticationToken"]?.stringValue)
            #expect(newToken != oldToken && AuthenticationTokenStrength.weakness(of: newToken) == nil)
            let order = try #require(rotated.json["order"])
            #expect(
                rotated.json["orderDetails"]
                    == [
                        "orderTypeIdentifier": .string(type), "orderIdentifier": .string(id), "webServiceURL": try #require(order["webServiceURL"]),
                        "authenticationToken": .string(newToken),
                    ])
            // The key lacks order-tokens:read (M12): the order it is shown leaves the token out; orderDetails hand it on.
            #expect(order["authenticationToken"] == nil)

            // The old token is a wrong token now, and the devices that held it are no longer registered.
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: oldToken).status == .unauthorized)
            #expect(try await Self.register(client, Self.orderDevice, Self.orderPushToken, type: type, id: id, token: oldToken) == .unauthorized)
            #expect(try await Self.devices(client, type: type, id: id) == [Self.linkDevice])
            let fresh = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: newToken)
            #expect(fresh.status == .ok)
            #expect(try ProviderCompatibilityTests.orderJSON(in: fresh.body)["authenticationToken"] == .string(newToken))
            #expect(try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)").json["order"]?["authenticationToken"] == .string(newToken))

            // The live link's device was pushed the new version, which it fetches with its own token.
            let pushes = try await apns.server.waitForPushes(count: 1, timeout: .seconds(20))
            #expect(pushes.map(\.deviceToken) == [Self.linkPushToken])
            let linked = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: link.deviceToken)
            #expect(linked.status == .ok)
            #expect(try ProviderCompatibilityTests.orderJSON(in: linked.body)["authenticationToken"] == .string(link.deviceToken))

            // The audit trail names the rotation and the key, never a token.
            let history = try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)/history?limit=1")
            let entry = try #require(history.json["data"]?.arrayValue?.first)
            #expect(entry["keyName"] == "writer")
            #expect(entry["diff"]?["/authenticationToken"] == ["from": "(redacted)", "to": "(redacted, new)"])
            #expect(!history.text.contains(newToken) && !history.text.contains(oldToken))

            #expect(try await client.merchant(.post, "/api/v1/orders/\(type)/no-such-order/rotate-token").status == .notFound)
        }
        try await apns.stop()
    }

    @Test func m13_aLinkMadeBeforeDeviceTokensGetsOneWhenOpened() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, orderToken) = try await client.createOrder().details
            // A link as schema version 16 stored it: the URL token's hash and no device token.
            let token = Secrets.randomToken(bytes: 24)
            let now = Date()
            try await client.store.createWalletLink(
                WalletLinkRecord(
                    id: "legacy-link", tokenHash: Secrets.sha256Hex(Array(token.utf8)), deviceTokenHash: nil,
                    merchantID: client.credentials.merchantID, order: OrderKey(orderTypeIdentifier: type, orderIdentifier: id), createdAt: now,
                    expiresAt: now.addingTimeInterval(3600)))
            let opened = try await client.call(.get, "/track/\(token)")
            #expect(opened.status == .ok)
            let deviceToken = try #require(try ProviderCompatibilityTests.orderJSON(in: opened.body)["authenticationToken"]?.stringValue)
            #expect(deviceToken != orderToken)
            #expect(try await client.store.walletLink(deviceTokenHash: Secrets.sha256Hex(Array(deviceToken.utf8)))?.id == "legacy-link")
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: deviceToken).status == .ok)
            #expect(
                try ProviderCompatibilityTests.orderJSON(in: try await client.call(.get, "/track/\(token)").body)["authenticationToken"]
                    == .string(deviceToken))
        }
    }
}
