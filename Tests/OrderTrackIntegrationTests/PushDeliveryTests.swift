import Crypto
import Foundation
import HTTPTypes
import MockAPNs
import OrderModel
import OrderPersistence
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

@Suite(.serialized) struct PushDeliveryTests {
    static let good = String(repeating: "ab", count: 32)
    static let rotated = String(repeating: "cd", count: 32)
    // Distinct endings: the push log identifies devices by the last 8 characters.
    static let unregistered = "fa170410" + String(repeating: "0", count: 48) + "00000001"
    static let badToken = "fa170400" + String(repeating: "0", count: 48) + "00000002"
    static let flaky = "fa17f2" + String(repeating: "0", count: 50) + "00000003"
    static let wrongTopic = String(repeating: "ee", count: 32)

    /// Creates an order and registers `tokens` (device `dev-i` gets `tokens[i]`); returns (type, id, token).
    func orderWithDevices(_ client: Client, tokens: [String]) async throws -> (String, String, String) {
        let (type, id, token) = try await client.createOrder().details
        for (index, pushToken) in tokens.enumerated() {
            let registered = try await client.device(
                .post, "/wallet/v1/devices/dev-\(index)/registrations/\(type)/\(id)", token: token, json: ["pushToken": .string(pushToken)])
            #expect(registered.status == .created)
        }
        return (type, id, token)
    }

    /// Waits (at most 20 s) until no push job is pending; returns whether that happened.
    func waitForEmptyOutbox(_ client: Client) async throws -> Bool {
        try await Poll.until(timeout: .seconds(20), every: .milliseconds(20)) { try await client.store.pushQueueDepth().pending == 0 }
    }

    @Test func anUpdateReachesEveryDeviceAndEachAPNsErrorIsHandled() async throws {
        let apns = try await LocalAPNs.start(faults: [Self.wrongTopic: .status(400, reason: "DeviceTokenNotForTopic")])
        let server = try TestServer(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            let tokens = [Self.good, Self.unregistered, Self.badToken, Self.flaky, Self.wrongTopic]
            let (type, id, _) = try await orderWithDevices(client, tokens: tokens)
            let shipped = try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["status": "completed"])
            #expect(shipped.status == .ok)

            let log = try await client.pushLog(type, id) { log in
                Set(log.compactMap { $0["outcome"]?.stringValue }).isSuperset(of: ["delivered", "token-removed", "parked"])
                    && log.filter { $0["outcome"] == "delivered" }.count == 2
            }
            func outcomes(_ token: String) -> [String] {
                log.filter { $0["tokenSuffix"]?.stringValue == String(token.suffix(8)) }.compactMap { $0["outcome"]?.stringValue }
            }
            // One push per token, exactly as decided.
            let accepted = apns.server.pushes()
            let delivered = try #require(accepted.first { $0.deviceToken == Self.good })
            #expect(delivered.topic == type)
            #expect(delivered.headers["apns-push-type"] == "background")
            #expect(delivered.headers["apns-priority"] == "5")
            #expect(delivered.body == "{}")
            let expiration = try #require(delivered.headers["apns-expiration"].flatMap(TimeInterval.init))
            #expect(abs(expiration - Date().addingTimeInterval(86_400).timeIntervalSince1970) < 120)
            #expect(delivered.headers["apns-id"] != nil)

            #expect(outcomes(Self.good) == ["delivered"])
            // Retried with backoff on 503, then delivered: one error never stops the others.
            #expect(Set(outcomes(Self.flaky)) == ["retrying", "delivered"])
            #expect(outcomes(Self.unregistered) == ["token-removed"])
            #expect(outcomes(Self.badToken) == ["token-removed"])
            #expect(outcomes(Self.wrongTopic) == ["parked"])
            let parked = try #require(log.first { $0["tokenSuffix"]?.stringValue == String(Self.wrongTopic.suffix(8)) })
            #expect(parked["reason"] == "DeviceTokenNotForTopic" && parked["apnsStatus"] == 400)

            // /metrics counts the outbox when it is read: nothing pending, the wrong topic's job parked.
            let depth = try await client.call(.get, "/metrics").text.split(separator: "\n").filter { $0.hasPrefix("ordertrack_push_queue_depth") }
            #expect(depth.contains { $0.hasPrefix(#"ordertrack_push_queue_depth{state="pending"} 0"#) }, "\(depth)")
            #expect(depth.contains { $0.hasPrefix(#"ordertrack_push_queue_depth{state="parked"} 1"#) }, "\(depth)")

            // Dead tokens lost their registrations; the others remain.
            let notify = try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/notify")
            #expect(notify.json["registrations"] == 3)

            let metrics = try await client.call(.get, "/metrics").text
            #expect(metrics.contains("ordertrack_pushes_sent_total"))
            #expect(metrics.contains("reason=\"DeviceTokenNotForTopic\""))
            #expect(metrics.contains("ordertrack_pushes_retried_total"))
        }
        try await apns.stop()
    }

    @Test func anOrderTypeCanPushWithAProviderTokenInstead() async throws {
        let key = P256.Signing.PrivateKey()
        let apns = try await LocalAPNs.start { configuration in
            configuration.authentication = .providerToken(keyID: "KEY1234567", teamID: "TEAM123456", publicKeyPEM: key.publicKey.pemRepresentation)
        }
        let server = try TestServer(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            try await Administration(store: client.store, trust: .development).setOrderType(
                merchantID: client.credentials.merchantID, orderTypeIdentifier: client.credentials.orderTypeIdentifier,
                identity: .directory(path: client.credentials.identityDirectory),
                apnsToken: APNsTokenConfig(p8PEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456"))
            await #expect(throws: OrderTrackError(.orderTypeRejected, "an APNs key that is not a .p8 file")) {
                try await Administration(store: client.store, trust: .development).setOrderType(
                    merchantID: client.credentials.merchantID, orderTypeIdentifier: client.credentials.orderTypeIdentifier,
                    identity: .directory(path: client.credentials.identityDirectory),
                    apnsToken: APNsTokenConfig(p8PEM: "not a key", keyID: "KEY1234567", teamID: "TEAM123456"))
            }
            let (type, id, _) = try await orderWithDevices(client, tokens: [Self.good])
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["status": "completed"]).status == .ok)
            let pushes = try await apns.server.waitForPushes(count: 1, timeout: .seconds(20))
            #expect(pushes.first?.headers["authorization"]?.hasPrefix("bearer ") == true)
        }
        try await apns.stop()
    }

    @Test func aCredentialChangedByAnotherInstanceIsUsedWithoutARestart() async throws {
        let key = P256.Signing.PrivateKey()
        let apns = try await LocalAPNs.start()
        var push = apns.push()
        push.credentialRecheckInterval = .seconds(60)
        let clock = TestClock()
        var server = try TestServer(push: push)
        server.now = { clock.date }
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await orderWithDevices(client, tokens: [Self.good])
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["status": "completed"]).status == .ok)
            let first = try await apns.server.waitForPushes(count: 1, timeout: .seconds(20))
            #expect(first.first?.headers["authorization"] == nil, "the certificate authenticates the first push")

            // Another instance switches the order type to a provider token: straight into the shared database.
            try await Administration(store: client.store, trust: .development).setOrderType(
                merchantID: client.credentials.merchantID, orderTypeIdentifier: type,
                identity: .directory(path: client.credentials.identityDirectory),
                apnsToken: APNsTokenConfig(p8PEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456"))
            clock.advance(by: .seconds(61))
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["status": "open"]).status == .ok)
            let both = try await apns.server.waitForPushes(count: 2, timeout: .seconds(20))
            #expect(both.last?.headers["authorization"]?.hasPrefix("bearer ") == true)
        }
        try await apns.stop()
    }

    @Test func tokenRotationSendsToTheNewTokenOnly() async throws {
        let apns = try await LocalAPNs.start()
        let server = try TestServer(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            let (type, id, token) = try await orderWithDevices(client, tokens: [Self.good])
            let rotated = try await client.device(
                .post, "/wallet/v1/devices/dev-0/registrations/\(type)/\(id)", token: token, json: ["pushToken": .string(Self.rotated)])
            #expect(rotated.status == .ok)
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["statusDescription": "Packed"]).status == .ok)
            let pushes = try await apns.server.waitForPushes(count: 1, timeout: .seconds(20))
            // Once the outbox is empty no other push can follow: every queued job was sent and recorded.
            #expect(try await waitForEmptyOutbox(client))
            // Sets: a retried push goes to the same token.
            #expect(Set(pushes.map(\.deviceToken)) == [Self.rotated])
            #expect(Set(apns.server.pushes().map(\.deviceToken)) == [Self.rotated])
        }
        try await apns.stop()
    }

    @Test func aSlowPushHoldsUpNoOtherAndAChangeWhileItIsInFlightIsSentAgain() async throws {
        let slow = "fa17de1a" + String(repeating: "0", count: 48) + "00000004"
        let apns = try await LocalAPNs.start { $0.slowResponseDelay = .seconds(3) }
        var push = apns.push()
        push.timeout = .seconds(20)
        let server = try TestServer(push: push)
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await orderWithDevices(client, tokens: [Self.good, slow])
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["status": "completed"]).status == .ok)
            func delivered(_ log: [JSONValue], _ token: String) -> Int {
                log.filter { $0["tokenSuffix"]?.stringValue == String(token.suffix(8)) && $0["outcome"] == "delivered" }.count
            }
            // The fast push is recorded while the slow one is still waiting for its answer.
            let first = try await client.pushLog(type, id) { delivered($0, Self.good) == 1 }
            #expect(delivered(first, Self.good) == 1)
            #expect(delivered(first, slow) == 0 && !apns.server.requests().contains { $0.deviceToken == slow })
            // The order changes again while the slow push is in flight: its job must go out once more afterwards.
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["statusDescription": "Packed"]).status == .ok)
            let log = try await client.pushLog(type, id) { delivered($0, slow) == 2 && delivered($0, Self.good) == 2 }
            #expect(delivered(log, slow) == 2 && delivered(log, Self.good) == 2)
            let slowPushes = apns.server.pushes().filter { $0.deviceToken == slow }
            #expect(slowPushes.count == 2)
            // Two changes, two pushes: each has an apns-id of its own (a push sent twice would repeat one), and the push
            // log names the ids APNs answered.
            #expect(Set(slowPushes.map(\.apnsID)).count == 2)
            let logged = Set(log.compactMap { $0["apnsID"]?.stringValue?.uppercased() })
            #expect(logged == Set(apns.server.pushes().map { $0.apnsID.uppercased() }))
        }
        try await apns.stop()
    }
}
