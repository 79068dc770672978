import APNs
import Foundation
import MockAPNs

package let testTopic = "order.com.example.test"

/// A random 64-hex-digit device token starting with `prefix`.
package func deviceToken(_ prefix: String = "") -> String {
    var generator = SystemRandomNumberGenerator()
    let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    return prefix + hex.dropFirst(prefix.count)
}

package func mockConfiguration(_ authentication: MockAPNsAuthentication = .none) -> MockAPNsConfiguration {
    var configuration = MockAPNsConfiguration(
        tlsCertificateChainPEM: MockAPNsPKI.shared.serverCertificatePEM, tlsPrivateKeyPEM: MockAPNsPKI.shared.serverKeyPEM)
    configuration.authentication = authentication
    return configuration
}

package let certificateCredential = try! APNsCredential.certificate(
    chainPEM: MockAPNsPKI.shared.clientCertificatePEM, privateKeyPEM: MockAPNsPKI.shared.clientKeyPEM)

package let tokenCredential = APNsCredential.token(p8PEM: MockAPNsPKI.shared.p8PEM, keyID: "ABC123DEFG", teamID: "TEAM123456")

package func clientConfiguration(
    _ server: MockAPNsServer, _ credential: APNsCredential = certificateCredential, timeout: Duration = .seconds(30)
) -> APNsConfiguration {
    APNsConfiguration(
        endpoint: URL(string: "https://127.0.0.1:\(server.port)")!, credential: credential, extraTrustRootsPEM: MockAPNsPKI.shared.caPEM,
        timeout: timeout)
}

/// Runs `body` with a started mock and a client pointed at it, shutting both down afterwards.
package func withMock<T>(
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

/// Gives the client's event loop time to read a close or GOAWAY the mock has sent. The client shows no sign of having
/// read it (it learns of it only on its event loop, and a push sent before that goes over the closing connection), so
/// these tests wait a moment: the one fixed wait of the suite.
package func clientSeesTheClose() async throws {
    try await Task.sleep(for: .milliseconds(100))
}

extension APNsResult {
    package var isDeliveredForTest: Bool {
        if case .delivered = self { return true }
        return false
    }
}
