import APNs
import APNsTestSupport
import Foundation
import MockAPNs
import Testing

// Serialized: timeout and dropped-connection tests wait on real network behaviour against deadlines.
@Suite("Faults injected by token are classified for the sender", .serialized)
struct FaultTests {
    @Test("410 Unregistered carries APNs' timestamp")
    func unregistered() async throws {
        try await withMock { server, client in
            let before = Date()
            let result = await client.send(APNsPush(deviceToken: deviceToken("fa170410"), topic: testTopic))
            let after = Date()
            guard case .unregistered(let since) = result else {
                Issue.record("expected unregistered, got \(result)")
                return
            }
            // The mock stamps its answer in whole milliseconds, between our send and its answer.
            #expect(since >= before.addingTimeInterval(-0.001) && since <= after)
            let recorded = try #require(server.requests().first)
            #expect(recorded.status == 410 && recorded.reason == "Unregistered")
            #expect(server.pushes().isEmpty)
        }
    }

    @Test(
        "Prefix faults map to badDeviceToken and retryable statuses",
        arguments: [
            ("fa170400", APNsResult.badDeviceToken),
            ("fa170429", .retryable(status: 429, reason: .apns(.tooManyRequests))),
            ("fa170500", .retryable(status: 500, reason: .apns(.internalServerError))),
            ("fa170503", .retryable(status: 503, reason: .apns(.serviceUnavailable))),
        ])
    func statusFaults(prefix: String, expected: APNsResult) async throws {
        try await withMock { _, client in
            #expect(await client.send(APNsPush(deviceToken: deviceToken(prefix), topic: testTopic)) == expected)
        }
    }

    @Test("Faults from the configuration map win over the prefix convention")
    func configuredFault() async throws {
        let token = deviceToken()
        var mock = mockConfiguration()
        mock.faults[token] = .status(400, reason: "DeviceTokenNotForTopic")
        try await withMock(mock) { _, client in
            let result = await client.send(APNsPush(deviceToken: token, topic: testTopic))
            #expect(result == .configurationError(status: 400, reason: .apns(.deviceTokenNotForTopic)))
        }
    }

    @Test("A dropped connection is retryable and the next push goes over a new connection")
    func droppedConnection() async throws {
        try await withMock { server, client in
            #expect(await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic)).isDeliveredForTest)
            let dropped = await client.send(APNsPush(deviceToken: deviceToken("fa17dead"), topic: testTopic))
            #expect(dropped.isRetryable, "got \(dropped)")
            let next = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            #expect(next.isDeliveredForTest, "got \(next)")
            let connections = server.pushes().map(\.connectionID)
            #expect(connections.count == 2)
            #expect(Set(connections).count == 2)
        }
    }

    @Test("The client reconnects after the server closes every connection")
    func serverClosesConnections() async throws {
        try await withMock { server, client in
            #expect(await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic)).isDeliveredForTest)
            await server.dropConnections()
            try await clientSeesTheClose()
            #expect(await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic)).isDeliveredForTest)
            #expect(Set(server.pushes().map(\.connectionID)).count == 2)
        }
    }

    @Test("After GOAWAY the client sends later pushes over a new connection")
    func goAwayMovesToNewConnection() async throws {
        try await withMock { server, client in
            #expect(await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic)).isDeliveredForTest)
            await server.goAway()
            try await clientSeesTheClose()
            for _ in 0..<3 {
                #expect(await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic)).isDeliveredForTest)
            }
            let connections = server.pushes().map(\.connectionID)
            #expect(connections.count == 4)
            #expect(Set(connections.dropFirst()).count == 1)
            #expect(connections[0] != connections[1])
        }
    }

    @Test("A slow answer past the client's timeout is retryable")
    func slowAnswerTimesOut() async throws {
        var mock = mockConfiguration()
        mock.slowResponseDelay = .seconds(20)
        try await withMock(
            mock,
            client: { server in
                var configuration = clientConfiguration(server)
                configuration.timeout = .seconds(1)
                return configuration
            }
        ) { _, client in
            let started = ContinuousClock.now
            let result = await client.send(APNsPush(deviceToken: deviceToken("fa17de1a"), topic: testTopic))
            guard case .retryable(nil, .transport(let failure)) = result else {
                Issue.record("expected a retryable timeout, got \(result)")
                return
            }
            #expect(failure.code == .timedOut)
            // Far sooner than the mock's 20 s answer: the client gave up by itself (with room for a loaded machine).
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test("fa17f<N> tokens fail N times with 503, then succeed")
    func failFirstAttempts() async throws {
        try await withMock { server, client in
            let push = APNsPush(deviceToken: deviceToken("fa17f2"), topic: testTopic)
            #expect(await client.send(push) == .retryable(status: 503, reason: .apns(.serviceUnavailable)))
            #expect(await client.send(push) == .retryable(status: 503, reason: .apns(.serviceUnavailable)))
            #expect(await client.send(push) == .delivered(apnsID: push.apnsID))
            #expect(server.requests().map(\.status) == [503, 503, 200])
        }
    }

    @Test("A non-hex device token is rejected locally without a request")
    func nonHexToken() async throws {
        try await withMock { server, client in
            #expect(await client.send(APNsPush(deviceToken: "../../etc/passwd", topic: testTopic)) == .badDeviceToken)
            #expect(await client.send(APNsPush(deviceToken: "", topic: testTopic)) == .badDeviceToken)
            #expect(await client.send(APNsPush(deviceToken: "\u{FF10}\u{FF11}", topic: testTopic)) == .badDeviceToken)
            #expect(server.requests().isEmpty)
        }
    }
}
