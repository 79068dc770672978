import Foundation
import OrderLookupSigning
import Testing

/// App Store Server API tokens: what is accepted and every reason for a 401.
@Suite struct TokenTests {
    static let material = LookupKeyMaterial.generate()
    static let key = LookupAPIToken.Key(publicKeyPEM: material.publicKeyPEM, issuerId: "issuer-1", bundleId: "com.example.shop")
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(
        _ claims: LookupAPIClaims, kid: String = material.keyId, privateKeyPEM: String = material.privateKeyPEM
    ) async throws -> String {
        try await LookupAPIToken.sign(claims, keyId: kid, privateKeyPEM: privateKeyPEM)
    }

    static func claims(aud: String = LookupAPIToken.audience, exp: TimeInterval = 300, iat: TimeInterval? = nil) -> LookupAPIClaims {
        LookupAPIClaims(
            iss: "issuer-1", aud: aud, bid: "com.example.shop", exp: now.addingTimeInterval(exp), iat: iat.map { now.addingTimeInterval($0) })
    }

    @Test func acceptsAppleShapedTokensWithAndWithoutIat() async throws {
        for claims in [Self.claims(), Self.claims(exp: 3_000, iat: -10)] {
            let token = try await Self.token(claims)
            #expect(try LookupAPIToken.keyId(of: token) == Self.material.keyId)
            #expect(try await LookupAPIToken.verify(token, key: Self.key, now: Self.now) == claims)
        }
    }

    @Test func refusesEveryInvalidToken() async throws {
        let cases: [(LookupAPIClaims, LookupTokenError)] = [
            (Self.claims(exp: -1), .expired),
            (Self.claims(aud: "appstoreconnect-v2"), .wrongAudience),
            (Self.claims(exp: 3_700), .lifetimeTooLong),
            (Self.claims(exp: 4_000, iat: 100), .lifetimeTooLong),
            (Self.claims(exp: 600, iat: 300), .lifetimeTooLong),
            (LookupAPIClaims(iss: "issuer-2", bid: "com.example.shop", exp: Self.now.addingTimeInterval(60)), .wrongIdentity),
            (LookupAPIClaims(iss: "issuer-1", bid: "com.example.other", exp: Self.now.addingTimeInterval(60)), .wrongIdentity),
        ]
        for (claims, expected) in cases {
            let token = try await Self.token(claims)
            await #expect(throws: expected) { try await LookupAPIToken.verify(token, key: Self.key, now: Self.now) }
        }
        let forged = try await Self.token(Self.claims(), privateKeyPEM: LookupKeyMaterial.generate().privateKeyPEM)
        await #expect(throws: LookupTokenError.badSignature) { try await LookupAPIToken.verify(forged, key: Self.key, now: Self.now) }
        #expect(throws: LookupTokenError.malformed) { try LookupAPIToken.keyId(of: "not.a-token") }
        let none = "eyJhbGciOiJub25lIiwia2lkIjoiQSJ9.e30."
        #expect(throws: LookupTokenError.wrongAlgorithm) { try LookupAPIToken.keyId(of: none) }
    }

    @Test func keyIdentifiersLookLikeAppStoreConnectOnes() {
        let ids = (0..<50).map { _ in LookupKeyMaterial.generate().keyId }
        #expect(Set(ids).count == 50)
        #expect(ids.allSatisfy { $0.count == 10 && $0.allSatisfy { $0.isUppercase || $0.isNumber } })
    }
}
