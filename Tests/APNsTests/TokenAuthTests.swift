import APNsTestSupport
import Crypto
import Foundation
import MockAPNs
import TestSupport
import Testing
import WireFormats

@testable import APNs

@Suite("Token auth: ES256 provider tokens, reused and refreshed")
struct TokenAuthTests {
    static let tokenMock = mockConfiguration(
        .providerToken(keyID: "ABC123DEFG", teamID: "TEAM123456", publicKeyPEM: MockAPNsPKI.shared.publicKeyPEM))

    @Test("50 concurrent sends share one provider token that the mock verifies with the public key")
    func oneTokenForConcurrentSends() async throws {
        try await withMock(Self.tokenMock, client: { clientConfiguration($0, tokenCredential) }) { server, client in
            let results = await withTaskGroup(of: APNsResult.self) { group in
                for _ in 0..<50 { group.addTask { await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic)) } }
                return await group.reduce(into: [APNsResult]()) { $0.append($1) }
            }
            let allDelivered = results.allSatisfy { $0.isDeliveredForTest }
            #expect(allDelivered)
            let authorizations = Set(server.pushes().compactMap { $0.headers["authorization"] })
            #expect(server.count == 50)
            #expect(authorizations.count == 1)
            let authorization = try #require(authorizations.first)
            #expect(authorization.hasPrefix("bearer "))
            try Self.verifyWithOpenSSL(jwt: String(authorization.dropFirst("bearer ".count)))
        }
    }

    @Test("A token from another key, or none, is refused by the mock")
    func wrongKeyRefused() async throws {
        let otherKey = P256.Signing.PrivateKey().pemRepresentation
        let wrong = APNsCredential.token(p8PEM: otherKey, keyID: "ABC123DEFG", teamID: "TEAM123456")
        try await withMock(Self.tokenMock, client: { clientConfiguration($0, wrong) }) { _, client in
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            #expect(result == .configurationError(status: 403, reason: .apns(.invalidProviderToken)))
        }
        try await withMock(Self.tokenMock) { _, client in
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            #expect(result == .configurationError(status: 403, reason: .apns(.missingProviderToken)))
        }
        let otherKeyID = APNsCredential.token(p8PEM: MockAPNsPKI.shared.p8PEM, keyID: "ZZZ999ZZZZ", teamID: "TEAM123456")
        try await withMock(Self.tokenMock, client: { clientConfiguration($0, otherKeyID) }) { _, client in
            let result = await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic))
            #expect(result == .configurationError(status: 403, reason: .apns(.invalidProviderToken)))
        }
    }

    @Test("ExpiredProviderToken makes the client mint one new token and send again")
    func expiredTokenRefreshed() async throws {
        try await withMock(Self.tokenMock, client: { clientConfiguration($0, tokenCredential) }) { server, client in
            #expect(await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic)).isDeliveredForTest)
            server.expireProviderTokens()
            let results = await withTaskGroup(of: APNsResult.self) { group in
                for _ in 0..<10 { group.addTask { await client.send(APNsPush(deviceToken: deviceToken(), topic: testTopic)) } }
                return await group.reduce(into: [APNsResult]()) { $0.append($1) }
            }
            let allDelivered = results.allSatisfy { $0.isDeliveredForTest }
            #expect(allDelivered, "\(results)")
            let accepted = server.pushes()
            #expect(accepted.count == 11)
            #expect(Set(accepted.compactMap { $0.headers["authorization"] }).count == 2)
            // Each send that went out before the new token was minted is refused once; how many did depends on how the
            // ten tasks were scheduled (under load, the first refusal's refresh can come before the others start).
            let refused = server.requests().filter { $0.reason == "ExpiredProviderToken" }.count
            #expect((1...10).contains(refused), "\(refused) sends refused as expired")
        }
    }

    @Test("The cached token is reused until the refresh interval, then replaced")
    func refreshInterval() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        let signer = try ProviderTokenSigner(p8PEM: MockAPNsPKI.shared.p8PEM, keyID: "ABC123DEFG", teamID: "TEAM123456")
        let cache = ProviderTokenCache(signer: signer, refreshInterval: 40 * 60, now: { clock.date })
        let first = try await cache.token()
        clock.advance(by: .seconds(39 * 60))
        #expect(try await cache.token() == first)
        clock.advance(by: .seconds(60))
        let second = try await cache.token()
        #expect(second != first)
        let claims = try #require(second.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode($0).map { Data($0) } })
        let json = try #require(try JSONSerialization.jsonObject(with: claims) as? [String: Any])
        #expect(json["iss"] as? String == "TEAM123456")
        #expect((json["iat"] as? NSNumber)?.intValue == 1_800_000_000 + 40 * 60)
        await cache.invalidate(first)
        #expect(try await cache.token() == second, "invalidating a replaced token must not mint again")
    }

    @Test("Refresh intervals outside 20 to 50 minutes are refused")
    func refreshIntervalRange() throws {
        var configuration = APNsConfiguration(credential: tokenCredential)
        configuration.tokenRefreshInterval = 10 * 60
        #expect(throws: APNsClientError.self) { try APNsClient(configuration: configuration) }
        configuration.tokenRefreshInterval = 55 * 60
        #expect(throws: APNsClientError.self) { try APNsClient(configuration: configuration) }
    }

    /// Checks the JWT's ES256 signature with the openssl CLI, independently of swift-crypto.
    static func verifyWithOpenSSL(jwt: String) throws {
        let parts = jwt.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try #require(Base64URL.decode(parts[0]).map { Data($0) })
        let headerJSON = try #require(try JSONSerialization.jsonObject(with: header) as? [String: String])
        #expect(headerJSON == ["alg": "ES256", "kid": "ABC123DEFG"])
        let raw = try #require(Base64URL.decode(parts[2]))
        try #require(raw.count == 64)
        let directory = MockAPNsPKI.shared.directory
        let input = directory.appendingPathComponent("jwt-input-\(UUID().uuidString)")
        let signature = directory.appendingPathComponent("jwt-sig-\(UUID().uuidString)")
        try Data("\(parts[0]).\(parts[1])".utf8).write(to: input)
        try derECDSASignature(Data(raw)).write(to: signature)
        let verification = try ExternalTools.openssl([
            "dgst", "-sha256", "-verify", directory.appendingPathComponent("key.pub").path, "-signature", signature.path, input.path,
        ])
        #expect(verification.status == 0, "openssl did not verify the provider token's signature: \(verification.output)")
    }

    /// ECDSA-Sig-Value DER from JWS r||s.
    static func derECDSASignature(_ raw: Data) -> Data {
        func integer(_ bytes: Data) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
        return Data([0x30, UInt8(body.count)] + body)
    }
}
