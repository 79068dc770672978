import Crypto
import Foundation
import WireFormats

/// Signs APNs provider tokens: ES256 JWTs `{"alg":"ES256","kid":KEYID}.{"iss":TEAMID,"iat":SECONDS}`.
struct ProviderTokenSigner: Sendable {
    let key: P256.Signing.PrivateKey
    let keyID: String
    let teamID: String

    init(p8PEM: String, keyID: String, teamID: String) throws(APNsClientError) {
        guard !keyID.isEmpty, !teamID.isEmpty else { throw .invalidSigningKey("the key id and team id must not be empty") }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: p8PEM)
        } catch {
            throw .invalidSigningKey("not a PEM P-256 private key (\(error))")
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    func token(issuedAt: Date) throws -> String {
        let header = try Self.json(["alg": "ES256", "kid": keyID])
        let claims = try Self.json(["iss": teamID, "iat": Int(issuedAt.timeIntervalSince1970)])
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    private static func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}

/// The current provider token, shared by all concurrent sends: minted once, reused until it is
/// `refreshInterval` old or APNs calls it expired, then replaced once however many sends noticed.
actor ProviderTokenCache {
    private let signer: ProviderTokenSigner
    private let refreshInterval: TimeInterval
    private let now: @Sendable () -> Date
    private var current: (token: String, issuedAt: Date)?

    init(signer: ProviderTokenSigner, refreshInterval: TimeInterval, now: @escaping @Sendable () -> Date = Date.init) {
        self.signer = signer
        self.refreshInterval = refreshInterval
        self.now = now
    }

    /// The token to send now.
    func token() throws -> String {
        let date = now()
        if let current, date.timeIntervalSince(current.issuedAt) < refreshInterval, date >= current.issuedAt {
            return current.token
        }
        let token = try signer.token(issuedAt: date)
        current = (token, date)
        return token
    }

    /// APNs called `token` expired: forget it unless another send already replaced it.
    func invalidate(_ token: String) {
        if current?.token == token { current = nil }
    }
}
