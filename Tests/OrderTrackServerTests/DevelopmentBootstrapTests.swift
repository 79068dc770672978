import Foundation
import OrderSigning
import ServerTestSupport
import Testing

@testable import OrderTrackServer

/// The demo's signing identity on a first start in development mode.
@Suite struct DevelopmentBootstrapTests {
    /// A data directory whose database was deleted keeps its demo identity: the next first start reuses it, so devices
    /// that trust its root keep trusting the demo's orders; one that expires within 30 days is replaced.
    @Test func aFirstStartReusesTheDemoIdentityLeftInTheDataDirectoryWhileItHasThirtyDaysLeft() async throws {
        let certificatePath = "identities/\(DevelopmentBootstrap.orderTypeIdentifier)/certificate.pem"

        let server = try TestServer()
        defer { server.remove() }
        let left = try Data(contentsOf: server.dataDirectory.appendingPathComponent(certificatePath))
        try await server.run { client in #expect(client.credentials.orderTypeIdentifier == DevelopmentBootstrap.orderTypeIdentifier) }
        #expect(try Data(contentsOf: server.dataDirectory.appendingPathComponent(certificatePath)) == left, "reused")

        var later = try TestServer()
        defer { later.remove() }
        let now = Date().addingTimeInterval(340 * 86_400)
        later.now = { now }
        try await later.run { _ in }
        let replaced = try SigningIdentity(directory: later.dataDirectory.appendingPathComponent(certificatePath).deletingLastPathComponent())
        #expect(try Data(contentsOf: later.dataDirectory.appendingPathComponent(certificatePath)) != left)
        #expect(replaced.notValidAfter > now.addingTimeInterval(300 * 86_400))
    }
}
