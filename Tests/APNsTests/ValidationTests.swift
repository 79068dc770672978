import APNs
import APNsTestSupport
import Foundation
import MockAPNs
import Testing

@Suite("The mock checks requests like APNs")
struct ValidationTests {
    @Test(
        "Malformed pushes get APNs' reasons, classified for the sender",
        arguments: [
            (APNsPush(deviceToken: deviceToken(), topic: ""), APNsResult.configurationError(status: 400, reason: .apns(.missingTopic))),
            (
                APNsPush(deviceToken: deviceToken(), topic: "order.com.other"),
                .configurationError(status: 400, reason: .apns(.deviceTokenNotForTopic))
            ),
            (APNsPush(deviceToken: deviceToken(), topic: testTopic, priority: 10), .rejected(status: 400, reason: .apns(.badPriority))),
            (APNsPush(deviceToken: deviceToken(), topic: testTopic, priority: 7), .rejected(status: 400, reason: .apns(.badPriority))),
            (APNsPush(deviceToken: deviceToken(), topic: testTopic, pushType: "shout"), .rejected(status: 400, reason: .apns(.invalidPushType))),
            (APNsPush(deviceToken: deviceToken(), topic: testTopic, payload: ""), .rejected(status: 400, reason: .apns(.payloadEmpty))),
            (
                APNsPush(deviceToken: deviceToken(), topic: testTopic, payload: "{\"a\":\"" + String(repeating: "x", count: 5000) + "\"}"),
                .rejected(status: 413, reason: .apns(.payloadTooLarge))
            ),
            (APNsPush(deviceToken: "abcdef", topic: testTopic), .badDeviceToken),
        ])
    func malformed(push: APNsPush, expected: APNsResult) async throws {
        var mock = mockConfiguration()
        mock.allowedTopics = [testTopic]
        try await withMock(mock) { server, client in
            #expect(await client.send(push) == expected)
            #expect(server.pushes().isEmpty)
            #expect(server.requests().count == 1)
        }
    }

    @Test("waitForPushes times out with a precise error")
    func waitTimesOut() async throws {
        _ = try await withMock { server, _ in
            await #expect(throws: MockAPNsError.self) { try await server.waitForPushes(count: 1, timeout: .milliseconds(50)) }
        }
    }

    @Test("Unusable TLS material is refused when the mock starts")
    func badTLSMaterial() async throws {
        let configuration = MockAPNsConfiguration(tlsCertificateChainPEM: "not a pem", tlsPrivateKeyPEM: MockAPNsPKI.shared.serverKeyPEM)
        await #expect(throws: MockAPNsError.self) { try await MockAPNsServer.start(configuration) }
    }
}
