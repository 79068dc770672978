import Crypto
import Foundation
import WireFormats

/// Verifies `authorization: bearer <JWT>` like APNs token-based auth: ES256, matching `kid` and `iss`,
/// an `iat` no older than an hour, and a valid signature.
struct ProviderTokenVerifier: Sendable {
    let keyID: String
    let teamID: String
    let publicKey: P256.Signing.PublicKey

    static let maximumAge: TimeInterval = 3600

    init(keyID: String, teamID: String, publicKeyPEM: String) throws(MockAPNsError) {
        do {
            publicKey = try P256.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        } catch {
            throw .invalidProviderKey("\(error)")
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The 403 answer for a missing, invalid or stale token, or nil when the token is good.
    func check(authorization: String?, now: Date) -> MockAnswer? {
        guard let authorization, !authorization.isEmpty else { return .error(403, "MissingProviderToken") }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .error(403, "InvalidProviderToken") }
        let segments = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
            let headerData = Base64URL.decode(segments[0]),
            let claimsData = Base64URL.decode(segments[1]),
            let signatureData = Base64URL.decode(segments[2]),
            let header = try? JSONSerialization.jsonObject(with: Data(headerData)) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: Data(claimsData)) as? [String: Any]
        else { return .error(403, "InvalidProviderToken") }
        guard header["alg"] as? String == "ES256", header["kid"] as? String == keyID,
            claims["iss"] as? String == teamID, let issuedAt = (claims["iat"] as? NSNumber)?.doubleValue
        else { return .error(403, "InvalidProviderToken") }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            publicKey.isValidSignature(signature, for: Data("\(segments[0]).\(segments[1])".utf8))
        else { return .error(403, "InvalidProviderToken") }
        // A clock a little ahead is tolerated; a token from the future is not.
        guard issuedAt <= now.timeIntervalSince1970 + 60 else { return .error(403, "InvalidProviderToken") }
        guard now.timeIntervalSince1970 - issuedAt <= Self.maximumAge else { return .error(403, "ExpiredProviderToken") }
        return nil
    }
}
