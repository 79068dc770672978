import APNs
import APNsTestSupport
import Foundation
import MockAPNs
import Testing
import X509

@Suite("Pushes reach the mock APNs as decided")
struct DeliveryTests {
    @Test("A push carries exactly the decided headers and body, and its apns-id comes back")
    func deliveredWithDecidedHeaders() async throws {
        try await withMock(mockConfiguration(.clientCertificate(trustRootsPEM: MockAPNsPKI.shared.clientCAPEM))) { server, client in
            let token = deviceToken()
            let push = APNsPush(deviceToken: token, topic: testTopic)
            let sentAt = Date()
            let result = await client.send(push)
            #expect(result == .delivered(apnsID: push.apnsID))
            let recorded = try #require(server.pushes().first)
            #expect(server.count == 1)
            #expect(recorded.deviceToken == token)
            #expect(recorded.topic == testTopic)
            #expect(recorded.headers["apns-push-type"] == "background")
            #expect(recorded.headers["apns-priority"] == "5")
            #expect(recorded.headers["apns-id"] == push.apnsID.uuidString)
            #expect(recorded.headers["authorization"] == nil)
            #expect(recorded.body == "{}")
            let expiration = try #require(recorded.headers["apns-expiration"].flatMap(Double.init))
            #expect(abs(expiration - sentAt.addingTimeInterval(86_400).timeIntervalSince1970) < 5)
        }
    }

    @Test("A credential from swift-certificates values authenticates like the PEM one")
    func certificateCredentialFromX509Values() async throws {
        let certificate = try Certificate(pemEncoded: MockAPNsPKI.shared.clientCertificatePEM)
        let key = try Certificate.PrivateKey(pemEncoded: MockAPNsPKI.shared.clientKeyPEM)
        let credential = try APNsCredential.certificate(chain: [certificate], privateKey: key)
        let mock = mockConfiguration(.clientCertificate(trustRootsPEM: MockAPNsPKI.shared.clientCAPEM))
        try await withMock(mock, client: { clientConfiguration($0, credential) }) { server, client in
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            #expect(result.isDeliveredForTest, "got \(result)")
            #expect(server.count == 1)
        }
    }

    @Test("An explicit expiration is sent as whole seconds since 1970")
    func explicitExpiration() async throws {
        try await withMock { server, client in
            let expiration = Date(timeIntervalSince1970: 1_900_000_000.7)
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic, expiration: expiration))
            #expect(result.isDeliveredForTest)
            #expect(server.pushes().first?.headers["apns-expiration"] == "1900000000")
        }
    }

    @Test("1000 concurrent pushes travel as streams of one connection and are all recorded")
    func thousandConcurrentPushesOneConnection() async throws {
        try await withMock { server, client in
            let tokens = (0..<1000).map { _ in deviceToken() }
            let results = await withTaskGroup(of: APNsResult.self) { group in
                for token in tokens { group.addTask { await client.send(APNsPush(deviceToken: token, topic: testTopic)) } }
                return await group.reduce(into: [APNsResult]()) { $0.append($1) }
            }
            #expect(results.count == 1000)
            let allDelivered = results.allSatisfy { $0.isDeliveredForTest }
            #expect(allDelivered)
            let recorded = server.pushes()
            #expect(Set(recorded.map(\.deviceToken)) == Set(tokens))
            #expect(Set(recorded.map(\.connectionID)).count == 1)
        }
    }

    @Test("A mock that requires a client certificate refuses a client without one")
    func clientCertificateRequired() async throws {
        let mock = mockConfiguration(.clientCertificate(trustRootsPEM: MockAPNsPKI.shared.clientCAPEM))
        try await withMock(mock, client: { clientConfiguration($0, tokenCredential, timeout: .seconds(10)) }) { server, client in
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            guard case .configurationError(nil, .transport(let failure)) = result, failure.code == .certificateRefused,
                failure.detail == "ALERT_CERTIFICATE_REQUIRED"
            else {
                Issue.record("expected a refused certificate to be a configuration error, got \(result)")
                return
            }
            #expect(server.requests().isEmpty)
        }
    }

    @Test("A client certificate from another CA is refused")
    func foreignClientCertificateRefused() async throws {
        // The server's own certificate is a valid certificate, but not one the client CA issued.
        let foreign = try APNsCredential.certificate(
            chainPEM: MockAPNsPKI.shared.serverCertificatePEM, privateKeyPEM: MockAPNsPKI.shared.serverKeyPEM)
        let mock = mockConfiguration(.clientCertificate(trustRootsPEM: MockAPNsPKI.shared.clientCAPEM))
        try await withMock(mock, client: { clientConfiguration($0, foreign, timeout: .seconds(10)) }) { server, client in
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            guard case .configurationError(nil, .transport(let failure)) = result, failure.code == .certificateRefused,
                failure.detail == "ALERT_UNKNOWN_CA"
            else {
                Issue.record("expected a refused certificate to be a configuration error, got \(result)")
                return
            }
            #expect(server.requests().isEmpty)
        }
    }

    @Test("A server the client does not trust is a configuration error")
    func untrustedServer() async throws {
        try await withMock(client: { server in
            var configuration = clientConfiguration(server, timeout: .seconds(10))
            configuration.extraTrustRootsPEM = nil
            return configuration
        }) { server, client in
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            guard case .configurationError(nil, .transport(let failure)) = result,
                [.tlsHandshakeFailed, .tlsFailed, .certificateRefused].contains(failure.code)
            else {
                Issue.record("expected a TLS configuration error, got \(result)")
                return
            }
            #expect(server.requests().isEmpty)
        }
    }
}
