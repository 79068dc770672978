import APNsTestSupport
import Foundation
import MockAPNs
import NIOHTTP2
import Testing

@testable import APNs

/// The client numbers and reads its HTTP/2 streams itself (no stream multiplexer): what the multiplexer did for it
/// (stream IDs, slots freed by resets, the connection's receive window) is checked here against the mock.
@Suite("HTTP/2 streams of the APNs client")
struct StreamTests {
    @Test("A connection that used its last stream ID hands later pushes to a new connection")
    func streamIDsRunOut() async throws {
        // Stream IDs 1, 3, 5: three pushes a connection.
        try await withStreamClient(lastStreamID: 5) { server, client in
            for _ in 0..<7 {
                let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
                #expect(result.isDeliveredForTest, "got \(result)")
            }
            #expect(server.pushes().map(\.connectionID) == [1, 1, 1, 2, 2, 2, 3])
            let concurrent = await send(20, prefix: "", client)
            #expect(concurrent.allSatisfy { $0.isDeliveredForTest }, "got \(concurrent)")
            #expect(server.count == 27)
        }
    }

    @Test("A stream APNs resets fails its push alone, retryably, and the connection carries the others")
    func resetStream() async throws {
        try await withStreamClient { server, client in
            async let reset = client.send(APNsPush(deviceToken: deviceToken("fa17c105"), topic: testTopic))
            let others = await send(50, prefix: "", client)
            let result = await reset
            guard case .retryable(nil, .transport(let failure)) = result, failure.code == .connectionLost else {
                Issue.record("expected a retryable lost stream, got \(result)")
                return
            }
            #expect(failure.detail.contains("reset (HTTP/2 error code 2)"), "\(failure.detail)")
            #expect(others.allSatisfy { $0.isDeliveredForTest })
            // The client tried the reset push twice (once more, as for a lost connection), all on one connection.
            #expect(server.requests().filter { $0.reason == "StreamReset" }.count == 2)
            #expect(Set(server.requests().map(\.connectionID)) == [1])
        }
    }

    @Test("A push that times out resets its stream, and its slot takes the next push")
    func timeoutsFreeStreamSlots() async throws {
        var mock = mockConfiguration()
        mock.maxConcurrentStreams = 2
        mock.slowResponseDelay = .seconds(60)
        // Long enough for a loaded machine to deliver the third push, far shorter than the mock's slow answers.
        try await withStreamClient(mock, timeout: .seconds(3)) { server, client in
            let slow = await send(2, prefix: "fa17de1a", client)
            #expect(slow.allSatisfy { $0.isTimeout }, "got \(slow)")
            // Both slots were held by unanswered streams; without their resets this push would wait for them until its
            // own deadline.
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            #expect(result.isDeliveredForTest, "got \(result)")
            #expect(Set(server.requests().map(\.connectionID)) == [1])
        }
    }

    @Test("Error bodies past the connection's 64 KiB receive window keep arriving: the client returns the window")
    func receiveWindowIsReturned() async throws {
        // 100 answers with a 1 KiB reason each: over 100 KiB of DATA on one connection.
        let reason = String(repeating: "TooLong", count: 150)
        let tokens = (0..<100).map { _ in deviceToken() }
        var mock = mockConfiguration()
        for token in tokens { mock.faults[token] = .status(400, reason: reason) }
        try await withStreamClient(mock, timeout: .seconds(10)) { server, client in
            let results = await withTaskGroup(of: APNsResult.self) { group in
                for token in tokens { group.addTask { await client.send(APNsPush(deviceToken: token, topic: testTopic)) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 100)
            #expect(results.allSatisfy { $0 == .rejected(status: 400, reason: .apns(.unknown(reason))) }, "got \(results.first!)")
            #expect(Set(server.requests().map(\.connectionID)) == [1])
        }
    }

    private func send(_ count: Int, prefix: String, _ client: APNsClient) async -> [APNsResult] {
        await withTaskGroup(of: APNsResult.self) { group in
            for _ in 0..<count { group.addTask { await client.send(APNsPush(deviceToken: deviceToken(prefix), topic: testTopic)) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    private func withStreamClient(
        _ mock: MockAPNsConfiguration = mockConfiguration(), timeout: Duration = .seconds(30), lastStreamID: HTTP2StreamID = .maxID,
        _ body: (MockAPNsServer, APNsClient) async throws -> Void
    ) async throws {
        try await withMock(mock) { server, _ in
            let client = try APNsClient(configuration: clientConfiguration(server, timeout: timeout), now: Date.init, lastStreamID: lastStreamID)
            do {
                try await body(server, client)
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
}

extension APNsResult {
    fileprivate var isTimeout: Bool {
        if case .retryable(nil, .transport(let failure)) = self { return failure.code == .timedOut }
        return false
    }
}

@Suite("The apns-id's text")
struct APNsIDTextTests {
    @Test("is what Foundation's uuidString writes, for random and edge UUIDs")
    func matchesFoundation() {
        var uuids = (0..<1_000).map { _ in UUID() }
        uuids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        uuids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        uuids.append(UUID(uuid: (0x0a, 0xb1, 0x2c, 0xd3, 0x4e, 0xf5, 0x60, 0x79, 0x8a, 0x9b, 0xac, 0xbd, 0xce, 0xdf, 0xe0, 0xf1)))
        for uuid in uuids { #expect(uuid.apnsIDText == uuid.uuidString) }
    }
}
