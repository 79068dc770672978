import APNs
import Foundation
import MockAPNs

let testTopic = "order.com.example.test"

/// A random 64-hex-digit device token starting with `prefix`.
func deviceToken(_ prefix: String = "") -> String {
    var generator = SystemRandomNumberGenerator()
    let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    return prefix + hex.dropFirst(prefix.count)
}

func mockConfiguration(_ authentication: MockAPNsAuthentication = .none) -> MockAPNsConfiguration {
    var configuration = MockAPNsConfiguration(
        tlsCertificateChainPEM: TestPKI.shared.serverCertificatePEM, tlsPrivateKeyPEM: TestPKI.shared.serverKeyPEM)
    configuration.authentication = authentication
    return configuration
}

let certificateCredential = try! APNsCredential.certificate(
    chainPEM: TestPKI.shared.clientCertificatePEM, privateKeyPEM: TestPKI.shared.clientKeyPEM)

let tokenCredential = APNsCredential.token(p8PEM: TestPKI.shared.p8PEM, keyID: "ABC123DEFG", teamID: "TEAM123456")

func clientConfiguration(
    _ server: MockAPNsServer, _ credential: APNsCredential = certificateCredential, timeout: Duration = .seconds(30)
) -> APNsConfiguration {
    APNsConfiguration(
        endpoint: URL(string: "https://127.0.0.1:\(server.port)")!, credential: credential, extraTrustRootsPEM: TestPKI.shared.caPEM,
        timeout: timeout)
}

/// Runs `body` with a started mock and a client pointed at it, shutting both down afterwards.
func withMock<T>(
    _ mock: MockAPNsConfiguration = mockConfiguration(), client: ((MockAPNsServer) -> APNsConfiguration)? = nil,
    _ body: (MockAPNsServer, APNsClient) async throws -> T
) async throws -> T {
    let server = try await MockAPNsServer.start(mock)
    let apns: APNsClient
    do {
        apns = try APNsClient(configuration: client?(server) ?? clientConfiguration(server))
    } catch {
        try await server.shutdown()
        throw error
    }
    do {
        let result = try await body(server, apns)
        try await apns.shutdown()
        try await server.shutdown()
        return result
    } catch {
        try? await apns.shutdown()
        try? await server.shutdown()
        throw error
    }
}
