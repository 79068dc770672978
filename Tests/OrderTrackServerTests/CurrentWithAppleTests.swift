import Foundation
import HTTPTypes
import OrderModel
import OrderTrackBenchmarks
import Testing

/// Issue 29: what Apple's current artifacts look like, judged as Apple judges them.
@Suite struct CurrentWithAppleTests {
    /// A Payment Processing certificate that names its merchant only by the hash extension uploads with its readable
    /// identifier (compared by hash), keeps it, and decrypts tokens; a wrong identifier names both hashes.
    @Test func aHashOnlyCertificateUploadsWithItsIdentifier() async throws {
        let fixture = try ApplePayBenchmark.Fixture(merchantIdentifier: "merchant.test.hashonly", subjectUID: false)
        #expect(fixture.identity.merchantIdentifier.count == 64, "the certificate alone names only the hash")
        let server = try ApplePayEndpointTests.server(fixture)
        defer { server.remove() }
        try await server.run { client in
            var body = try ApplePayEndpointTests.identityBody(fixture)
            body["merchantIdentifier"] = "merchant.test.other"
            let refused = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: body)
            #expect(refused.status == .unprocessableContent && refused.json["error"]?["param"] == "merchantIdentifier", "\(refused.text)")
            let message = refused.json["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("merchant.test.other (SHA-256 ") && message.contains(fixture.identity.merchantIdentifier), "\(message)")

            body["merchantIdentifier"] = "merchant.test.hashonly"
            let added = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: body)
            #expect(added.status == .created, "\(added.text)")
            #expect(added.json["merchantIdentifier"] == "merchant.test.hashonly")
            let listed = try await client.merchant(.get, "/api/v1/apple_pay/payment-identities")
            #expect(listed.json["data"]?.arrayValue?.first?["merchantIdentifier"] == "merchant.test.hashonly")
            let paid = try await client.merchant(
                .post, "/api/v1/apple_pay/payments",
                json: ["token": try ApplePayEndpointTests.token(fixture, amount: 4200), "order": SampleContent.order])
            #expect(paid.status == .created, "\(paid.text)")
        }
    }
}
