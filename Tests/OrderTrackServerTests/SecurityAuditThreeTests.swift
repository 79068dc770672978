import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import OrderTrackServer
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
}
