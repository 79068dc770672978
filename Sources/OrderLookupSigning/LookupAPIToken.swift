import Foundation
import JWTKit

/// The claims of an App Store Server API token: `iss` (issuer id), `aud` (`appstoreconnect-v1`), `bid` (bundle id),
/// `exp` and an optional `iat` (Apple's own Python client sends none).
public struct LookupAPIClaims: JWTPayload, Equatable {
    /// The issuer id of the key.
    public var iss: String
    /// Must contain ``LookupAPIToken/audience``.
    public var aud: AudienceClaim
    /// The bundle id of the key.
    public var bid: String
    /// When the token expires.
    public var exp: ExpirationClaim
    /// When the token was made, if the client says.
    public var iat: IssuedAtClaim?

    /// Claims; see the properties.
    public init(iss: String, aud: String = LookupAPIToken.audience, bid: String, exp: Date, iat: Date? = nil) {
        self.iss = iss
        self.aud = AudienceClaim(value: aud)
        self.bid = bid
        self.exp = ExpirationClaim(value: exp)
        self.iat = iat.map { IssuedAtClaim(value: $0) }
    }

    /// Time-dependent checks are in ``LookupAPIToken/verify(_:key:now:)``, which has a clock.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Why a token was refused. The endpoint answers every case with the same bodiless 401; the case is for logs.
public enum LookupTokenError: Error, Sendable, Equatable {
    /// Not three Base64URL parts with a JSON header, or claims of the wrong shape.
    case malformed
    /// The header's `alg` is not `ES256`.
    case wrongAlgorithm
    /// The header has no `kid`.
    case missingKeyId
    /// No active key has the `kid` (unknown or revoked).
    case unknownKey
    /// The signature does not verify with the key.
    case badSignature
    /// `aud` is not `appstoreconnect-v1`.
    case wrongAudience
    /// `iss` or `bid` is not the key's.
    case wrongIdentity
    /// `exp` has passed.
    case expired
    /// `exp` is more than an hour after `iat` (or after now, without `iat`), or `iat` is in the future.
    case lifetimeTooLong
}

/// Reads and checks App Store Server API tokens the way Apple documents them.
public enum LookupAPIToken {
    /// The `aud` every token carries.
    public static let audience = "appstoreconnect-v1"
    /// The longest a token may live: 60 minutes after `iat`.
    public static let maximumLifetime: TimeInterval = 3_600
    /// Tolerated clock difference for `iat` in the future.
    public static let clockSkew: TimeInterval = 60

    /// The key a token checks against.
    public struct Key: Sendable {
        /// The key's public half, SubjectPublicKeyInfo PEM.
        public var publicKeyPEM: String
        /// The `iss` the token must carry.
        public var issuerId: String
        /// The `bid` the token must carry.
        public var bundleId: String

        /// A key; see the properties.
        public init(publicKeyPEM: String, issuerId: String, bundleId: String) {
            self.publicKeyPEM = publicKeyPEM
            self.issuerId = issuerId
            self.bundleId = bundleId
        }
    }

    /// The header's `kid`, read before the key is known; checks that `alg` is `ES256`.
    ///
    /// - Throws: ``LookupTokenError/malformed``, ``LookupTokenError/wrongAlgorithm``,
    ///   ``LookupTokenError/missingKeyId``.
    public static func keyId(of token: String) throws(LookupTokenError) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = base64URLDecoded(parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes)
        else { throw .malformed }
        guard header.alg == "ES256" else { throw .wrongAlgorithm }
        guard let kid = header.kid, !kid.isEmpty else { throw .missingKeyId }
        return kid
    }

    /// Verifies `token` with `key` at `now` and returns its claims.
    ///
    /// - Throws: a ``LookupTokenError`` saying which check failed.
    public static func verify(_ token: String, key: Key, now: Date = Date()) async throws(LookupTokenError) -> LookupAPIClaims {
        _ = try keyId(of: token)
        let publicKey: ES256PublicKey
        do {
            publicKey = try ES256PublicKey(pem: key.publicKeyPEM)
        } catch {
            throw .unknownKey
        }
        let claims: LookupAPIClaims
        do {
            claims = try await JWTKeyCollection().add(ecdsa: publicKey).verify(token, as: LookupAPIClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed
        }
        guard claims.aud.value.contains(audience) else { throw .wrongAudience }
        guard equal(claims.iss, key.issuerId), equal(claims.bid, key.bundleId) else { throw .wrongIdentity }
        guard claims.exp.value > now else { throw .expired }
        let start = claims.iat?.value ?? now
        guard start <= now.addingTimeInterval(clockSkew), claims.exp.value.timeIntervalSince(start) <= maximumLifetime
        else { throw .lifetimeTooLong }
        return claims
    }

    /// A token as App Store Server API clients make one: header `alg` ES256, `kid` and `typ` JWT.
    ///
    /// - Throws: ``LookupSigningError/invalidKey(reason:)`` for a private key that is not P-256 PKCS#8 or SEC 1 PEM.
    public static func sign(_ claims: LookupAPIClaims, keyId: String, privateKeyPEM: String) async throws(LookupSigningError) -> String {
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(pem: privateKeyPEM)
        } catch {
            throw .invalidKey(reason: "not a P-256 private key in PEM")
        }
        do {
            return try await JWTKeyCollection().add(ecdsa: key).sign(claims, header: ["kid": .string(keyId)])
        } catch {
            throw .signingFailed(reason: "\(error)")
        }
    }

    /// Constant-time, so response times do not tell how much of an issuer or bundle id was right.
    private static func equal(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8)
        let b = Array(right.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
