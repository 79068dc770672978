import Foundation
import HTTPTypes
import OrderModel
import OrderTrackBenchmarks
import OrderZip
import ServerTestSupport
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

    /// Apple asks that nobody download another person's order package even with its URL: a single-use link opens
    /// once (two racing downloads get one package), lives minutes, and hands the customer the order's own token.
    @Test func aSingleUseLinkOpensOnce() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let created = try await client.createOrder()
            let path = created.path + "/wallet-link"
            let tooLong = try await client.merchant(.post, path, json: ["singleUse": true, "expiresIn": 7200])
            #expect(tooLong.json["error"]?["param"] == "expiresIn" && tooLong.text.contains("single-use"), "\(tooLong.text)")
            #expect(try await client.merchant(.post, path, json: ["singleUse": "yes"]).status == .badRequest)

            let made = try await client.merchant(.post, path, json: ["singleUse": true])
            #expect(made.status == .created && made.json["singleUse"] == true && made.json["usedAt"] == .null, "\(made.text)")
            let url = try #require(made.json["url"]?.stringValue)
            let linkPath = String(url.dropFirst(TestServer.publicURL.count))
            let expires = try #require(made.json["expiresAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339))
            #expect(abs(expires.timeIntervalSinceNow - 600) < 60, "ten minutes by default")

            #expect(try await client.call(.get, linkPath + "/qr.svg").status == .ok, "drawing the QR code uses nothing")
            let first = try await client.call(.get, linkPath)
            #expect(first.status == .ok)
            let file = try #require(try ZipReader.read(first.body).first { $0.name == "order.json" })
            #expect(try JSONValue.parse(file.data)["authenticationToken"] == .string(created.token), "the order's own token")
            let second = try await client.call(.get, linkPath)
            #expect(second.status == .gone && second.text.contains("This link was used"))

            // Two downloads racing: one package.
            let raced = try #require(try await client.merchant(.post, path, json: ["singleUse": true]).json["url"]?.stringValue)
            let racedPath = String(raced.dropFirst(TestServer.publicURL.count))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<4 { group.addTask { try await client.call(.get, racedPath).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1 && statuses.filter { $0 == .gone }.count == 3, "\(statuses)")

            // A long-lived link, for e-mails, still opens as often as needed.
            let lasting = try #require(try await client.merchant(.post, path, json: [:]).json["url"]?.stringValue)
            let lastingPath = String(lasting.dropFirst(TestServer.publicURL.count))
            #expect(try await client.call(.get, lastingPath).status == .ok)
            #expect(try await client.call(.get, lastingPath).status == .ok)
        }
    }
}
