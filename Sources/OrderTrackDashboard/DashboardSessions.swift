import Crypto
import Foundation
import OrderModel
import OrderPersistence
import OrderTrackServer
import WireFormats

/// Dashboard sign-in sessions, kept in the database so that every instance behind a load balancer knows them.
///
/// The cookie carries a random id (256 bits from the system CSPRNG); the store keeps only its SHA-256, so a copy of the
/// database signs nobody in. The CSRF token is derived from the id (an HMAC), so it needs no storage, differs per
/// session and cannot be computed without the cookie.
struct DashboardSessions: Sendable {
    /// How long a session lasts after sign-in, whatever happens meanwhile: one working day.
    static let lifetime: TimeInterval = 12 * 3600
    /// The cookie's name; its path is `/dashboard`, so the API and the device endpoints never see it.
    static let cookieName = "ordertrack_session"

    /// A live session: who it is for and the token its pages must send back with every change.
    struct Session: Sendable {
        var merchant: MerchantRecord
        var csrfToken: String
    }

    let store: any DashboardSessionStore & MerchantStore
    let administration: Administration
    let now: @Sendable () -> Date

    /// Starts a session for the merchant owning `apiKey` and answers its id and how long it lasts (for the cookie);
    /// `nil` when the key is not valid.
    func signIn(apiKey: String) async throws -> (id: String, lifetime: TimeInterval)? {
        let key = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)
        guard key.hasPrefix("sk_"), let (found, merchant) = try await administration.apiKey(secret: key), found.scopes == nil,
            found.isUsable(at: now())
        else { return nil }
        let id = Secrets.randomToken(bytes: 32)
        let created = now()
        // The session ends with the key: at its expiry, and when it is revoked or its secret rotated.
        let expires = min(created.addingTimeInterval(Self.lifetime), found.expiresAt ?? .distantFuture)
        let record = DashboardSessionRecord(
            idHash: Secrets.sha256Hex(Array(id.utf8)), merchantID: merchant.id, apiKeyID: found.id, apiKeyHash: Secrets.sha256Hex(Array(key.utf8)),
            createdAt: created, expiresAt: expires)
        try await store.createDashboardSession(record)
        return (id, expires.timeIntervalSince(created))
    }

    /// Why `apiKey` did not sign in, for the sign-in page: a restricted, revoked, expired or rotated key says so.
    func refusal(apiKey: String) async throws -> String {
        let key = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)
        if let rotated = try await administration.rotatedAPIKey(secret: key) {
            return "That secret of API key \(rotated.keyID) was rotated on \(DateTimeFormat.formatRFC3339(rotated.rotatedAt)). Use the new secret."
        }
        guard let (found, _) = try await administration.apiKey(secret: key) else { return "That API key is not valid. Check it and try again." }
        if let revoked = found.revokedAt { return "API key \(found.id) was revoked on \(DateTimeFormat.formatRFC3339(revoked))." }
        if let expires = found.expiresAt, expires <= now() {
            return "API key \(found.id) expired on \(DateTimeFormat.formatRFC3339(expires))."
        }
        if found.scopes != nil { return "Restricted keys (rk_…) cannot sign in; use a secret key (sk_…)." }
        return "That API key is not valid. Check it and try again."
    }

    /// The live session with this id; an expired one (or one whose key expired) is deleted and answers `nil`, as an
    /// unknown one does, or one whose key was revoked or rotated.
    func session(id: String) async throws -> Session? {
        guard (1...128).contains(id.utf8.count) else { return nil }
        let idHash = Secrets.sha256Hex(Array(id.utf8))
        guard let live = try await store.dashboardSession(idHash: idHash) else { return nil }
        let now = now()
        guard live.record.expiresAt > now, (live.apiKeyExpiresAt ?? .distantFuture) > now else {
            try await store.deleteDashboardSession(idHash: idHash)
            return nil
        }
        guard let merchant = try await store.merchant(id: live.record.merchantID) else { return nil }
        return Session(merchant: merchant, csrfToken: Self.csrfToken(sessionID: id))
    }

    /// Ends the session; the cookie, if a browser kept it, no longer signs anybody in.
    func signOut(id: String) async throws {
        try await store.deleteDashboardSession(idHash: Secrets.sha256Hex(Array(id.utf8)))
    }

    /// Ends every session of the merchant, on every device and instance; answers how many ended.
    func signOutEverywhere(merchantID: String) async throws -> Int {
        try await store.deleteDashboardSessions(merchantID: merchantID)
    }

    /// HMAC-SHA256 of a fixed label under the session id.
    static func csrfToken(sessionID: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array("ordertrack dashboard csrf".utf8), using: SymmetricKey(data: Array(sessionID.utf8)))
        return Base64URL.encode(Array(code))
    }
}
