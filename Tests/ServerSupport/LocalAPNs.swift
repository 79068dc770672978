import Foundation
import MockAPNs
import OrderTrackServer
import TestSupport

/// A local APNs over real TLS and HTTP/2, with a self-signed certificate made by `openssl`.
package struct LocalAPNs {
    package let server: MockAPNsServer
    package let caPEM: String
    package let directory: URL

    package static func start(faults: [String: MockAPNsFault] = [:], configure: (inout MockAPNsConfiguration) -> Void = { _ in }) async throws
        -> LocalAPNs
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-apns-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = try await ExternalTools.run(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", "key.pem", "-out", "cert.pem",
            ], in: directory)
        let certificate = try String(contentsOf: directory.appendingPathComponent("cert.pem"), encoding: .utf8)
        let key = try String(contentsOf: directory.appendingPathComponent("key.pem"), encoding: .utf8)
        var configuration = MockAPNsConfiguration(tlsCertificateChainPEM: certificate, tlsPrivateKeyPEM: key)
        configuration.faults = faults
        configure(&configuration)
        return LocalAPNs(server: try await MockAPNsServer.start(configuration), caPEM: certificate, directory: directory)
    }

    package var endpoint: URL { URL(string: "https://127.0.0.1:\(server.port)")! }
    package var caFile: String { directory.appendingPathComponent("cert.pem").path }

    package func push(configuration: PushConfiguration = PushConfiguration()) -> PushConfiguration {
        var configuration = configuration
        configuration.endpoint = endpoint
        configuration.extraTrustRootsPEM = caPEM
        configuration.initialBackoff = 0.05
        configuration.maximumBackoff = 0.2
        configuration.pollInterval = .milliseconds(100)
        // Far above a loaded machine's answer times: an answer slower than the timeout is retried, which would change the
        // outcomes these tests assert. Timeouts are tested in APNsTests' FaultTests.
        configuration.timeout = .seconds(20)
        return configuration
    }

    package func stop() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}

// Serialized: the slow-push and retry tests measure real APNs answer times against deadlines.
