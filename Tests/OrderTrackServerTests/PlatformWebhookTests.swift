import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderPersistence
@testable import OrderTrackServer

/// A platform's webhook endpoint (issue #32: "a platform subscribes once and hears every Wallet event of its
/// merchants"): one endpoint, made by the operator, sent every merchant's events, those of merchants created later too,
/// each merchant's in order and each delivery naming its merchant; one merchant's failures hold back no other's; the
/// merchants neither see nor manage it.
@Suite(.serialized)
struct PlatformWebhookTests {
    /// The service as `ordertrack webhooks --all-merchants` uses it, on the test server's store.
    static func endpoints(_ client: Client) throws -> WebhookEndpoints {
        let store = try #require(client.store as? SQLOrderStore)
        return WebhookEndpoints(store: store, configuration: WebhookConfiguration(), isDevelopment: true, now: { store.now() })
    }

    static func body(_ request: ReceivedRequest) -> JSONValue { (try? JSONValue.parse(request.body)) ?? .null }

    @Test func oneEndpointHearsEveryMerchantThoseCreatedLaterTooEachInOrder() async throws {
        // The first delivery fails: its merchant's share waits out the backoff while the others' go on.
        let receiver = try await WebhookReceiver.start(statuses: [500])
        defer { receiver.stop() }
        let (server, clock) = try WebhookTests.server()
        defer { server.remove() }
        try await server.run { client in
            let administration = Administration(store: client.store)
            let merchantA = client.credentials.merchantID
            let (merchantB, _) = try await administration.createMerchant(name: "Merchant B")
            // Written before the endpoint exists: never sent.
            try await WebhookTests.append(client, [NewEvent(merchantID: merchantA, type: .orderCreated, order: nil, data: ["n": .string("before")])])
            let service = try Self.endpoints(client)
            let created = try await service.createForPlatform(url: "http://127.0.0.1:\(receiver.port)/platform", events: ["*"], description: "p")
            #expect(created.endpoint.id.hasPrefix("wep_") && created.secret.hasPrefix("whsec_"))
            #expect(created.endpoint.merchants == (try await client.store.merchants().count))
            let (merchantC, keyC) = try await administration.createMerchant(name: "Merchant C")
            let merchants = [merchantA, merchantB.id, merchantC.id]
            var events: [NewEvent] = []
            for n in 0..<3 {
                for merchant in merchants {
                    events.append(NewEvent(merchantID: merchant, type: .orderUpdated, order: nil, data: ["n": .integer(Int64(n))]))
                }
            }
            try await WebhookTests.append(client, events)

            // One failed request, then the two other merchants' six events, with no time passing.
            let others = try await Poll.until(timeout: .seconds(30)) { receiver.requests.count >= 7 }
            #expect(others, "\(receiver.requests.count) requests")
            try await Task.sleep(for: .milliseconds(300))
            #expect(receiver.requests.count == 7)
            let failedMerchant = try #require(Self.body(receiver.requests[0])["merchantId"]?.stringValue)
            #expect(receiver.requests.dropFirst().allSatisfy { Self.body($0)["merchantId"]?.stringValue != failedMerchant })
            // After the 30 s backoff, the failed merchant's three.
            try await WebhookTests.advance(clock, by: .seconds(1)) { receiver.requests.count >= 10 }

            let delivered = Array(receiver.requests.dropFirst())
            #expect(delivered.count == 9 && delivered.allSatisfy { $0.head.uri == "/platform" })
            for merchant in merchants {
                let numbers = delivered.map(Self.body).filter { $0["merchantId"]?.stringValue == merchant }.map { $0["data"]?["n"] }
                #expect(numbers == [.number("0"), .number("1"), .number("2")], "merchant \(merchant): \(numbers)")
            }
            #expect(!delivered.contains { Self.body($0)["data"]?["n"] == "before" })
            try WebhookTests.verifyWithPython(delivered, secrets: [created.secret])
            // Apart from merchantId, a delivery is the merchant's events API answer.
            var first = Self.body(try #require(delivered.first))
            let owner = try #require(first["merchantId"]?.stringValue)
            first["merchantId"] = nil
            let key = owner == merchantC.id ? keyC : (owner == merchantA ? client.apiKey : nil)
            if let key, let id = first["id"]?.stringValue {
                #expect(try await RestrictedKeyTests.call(client, key, .get, "/api/v1/events/\(id)").json == first)
            }

            // The log names each delivery's merchant; the failed one counts two attempts. The last delivery is
            // logged just after its answer arrives.
            var log: [PlatformWebhookDelivery] = []
            try await WebhookTests.advance(clock, by: .zero) {
                log = try await service.deliveriesForPlatform(id: created.endpoint.id, limit: 100)
                return log.count == 9 && log.allSatisfy { $0.delivery.status == .succeeded }
            }
            #expect(log.count == 9 && Set(log.map(\.merchantID)) == Set(merchants))
            #expect(log.filter { $0.delivery.attempts == 2 }.map(\.merchantID) == [failedMerchant])
            #expect(log.allSatisfy { $0.delivery.status == .succeeded })

            // The merchants neither see nor manage the platform's endpoint, nor their share of it.
            let share = try #require(log.first { $0.merchantID == merchantC.id }?.delivery.endpointID)
            #expect(try await RestrictedKeyTests.call(client, keyC, .get, "/api/v1/webhook-endpoints").json["data"] == [])
            for method in [HTTPRequest.Method.get, .delete] {
                #expect(try await RestrictedKeyTests.call(client, keyC, method, "/api/v1/webhook-endpoints/\(share)").status == .notFound)
            }
            #expect(try await client.merchant(.get, "/api/v1/webhook-endpoints/\(created.endpoint.id)").status == .notFound)
        }
    }

    @Test func rotationEnablingAndDeletionReachEveryShare() async throws {
        let receiver = try await WebhookReceiver.start(statuses: Array(repeating: 502, count: 1_000))
        defer { receiver.stop() }
        let (server, clock) = try WebhookTests.server()
        defer { server.remove() }
        try await server.run { client in
            let administration = Administration(store: client.store)
            let service = try Self.endpoints(client)
            let created = try await service.createForPlatform(url: "http://127.0.0.1:\(receiver.port)/", events: ["order.created"], description: nil)
            let rotated = try await service.rotateSecretForPlatform(id: created.endpoint.id)
            // A merchant created after the rotation signs with both secrets too.
            let (merchantB, _) = try await administration.createMerchant(name: "Merchant B")
            try await WebhookTests.append(
                client,
                [
                    NewEvent(merchantID: merchantB.id, type: .orderCreated, order: nil, data: ["who": .string("B")]),
                    // Not of the endpoint's types: skipped.
                    NewEvent(merchantID: client.credentials.merchantID, type: .pushFailed, order: nil, data: ["who": .string("A")]),
                ])

            // Only B's share fails for three days and is disabled; A's stays enabled.
            var state = created.endpoint
            try await WebhookTests.advance(clock, by: .seconds(3_600)) {
                state = try #require(try await client.store.platformWebhookEndpoint(id: created.endpoint.id))
                return !state.disabledMerchants.isEmpty
            }
            #expect(Array(state.disabledMerchants.keys) == [merchantB.id] && state.merchants == 2)
            #expect(state.disabledMerchants[merchantB.id]?.hasPrefix("deliveries failed for ") == true)
            try WebhookTests.verifyWithPython([try #require(receiver.requests.first)], secrets: [rotated.secret, created.secret])
            #expect(receiver.requests.allSatisfy { Self.body($0)["merchantId"] == .string(merchantB.id) })

            receiver.succeedFromNowOn()
            let tries = receiver.requests.count
            let enabled = try await service.enableForPlatform(id: created.endpoint.id)
            #expect(enabled.disabledMerchants.isEmpty)
            try await WebhookTests.advance(clock, by: .seconds(1)) { receiver.requests.count > tries }
            try await WebhookTests.advance(clock, by: .zero) {
                try await service.deliveriesForPlatform(id: created.endpoint.id, limit: 10).first?.delivery.status == .succeeded
            }

            // Deleted, it and every share are gone, and nothing more is sent.
            try await service.deleteForPlatform(id: created.endpoint.id)
            let store = try #require(client.store as? SQLOrderStore)
            let shares = try await store.read("count shares") { db in
                try await db.raw("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE platform_endpoint_id IS NOT NULL").first(
                    decodingColumn: "n", as: Int.self)
            }
            #expect(shares == 0)
            let sent = receiver.requests.count
            try await WebhookTests.append(client, [NewEvent(merchantID: merchantB.id, type: .orderCreated, order: nil, data: ["who": .string("B")])])
            clock.advance(by: .seconds(5))
            try await Task.sleep(for: .milliseconds(300))
            #expect(receiver.requests.count == sent)
            await #expect(throws: OrderTrackError.self) { try await service.deleteForPlatform(id: created.endpoint.id) }
        }
    }
}
