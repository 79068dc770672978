import Foundation
import HTTPTypes
import OrderModel
import OrderTrackServer
import ServerTestSupport
import Testing

/// Development mode never sends a development identity's pushes to Apple's APNs, which would refuse them: they are
/// parked with the reason, before any connection is made.
@Suite struct DevelopmentPushTests {
    @Test func aDevelopmentIdentitysPushIsParkedInsteadOfSentToApple() async throws {
        let server = try TestServer(push: PushConfiguration(endpoint: URL(string: "https://api.push.apple.com")!))
        defer { server.remove() }
        try await server.run { client in
            let (type, id, token) = try await client.createOrder().details
            let registered = try await client.device(
                .post, "/wallet/v1/devices/dev-1/registrations/\(type)/\(id)", token: token,
                json: ["pushToken": .string(String(repeating: "ab", count: 32))])
            #expect(registered.status == .created)
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: ["status": "completed"]).status == .ok)
            let log = try await client.pushLog(type, id) { !$0.isEmpty }
            let entry = try #require(log.first, "the push was recorded")
            #expect(entry["outcome"] == "parked")
            let reason = entry["reason"]?.stringValue ?? ""
            #expect(reason.contains("not sent to Apple's APNs") && reason.contains("--mock-apns"), "\(reason)")
            #expect(entry["apnsStatus"] == .null, "no connection to Apple was made")
        }
    }
}
