import Foundation

/// The merchants' API keys: adding, rotating and revoking them, finding the key of a request, and recording their use.
///
/// All methods throw ``OrderStoreError``.
public protocol APIKeyStore: Sendable {
    /// Stores an API key by its SHA-256 (lowercase hex, computed by the caller).
    /// Throws ``OrderStoreError/merchantNotFound(id:)`` or ``OrderStoreError/apiKeyAlreadyExists(prefix:)``.
    func addAPIKey(_ key: APIKeyInfo, keyHash: String) async throws
    /// The merchant owning the unrestricted (every scope), unrevoked and unexpired API key with this SHA-256, if any:
    /// what a dashboard sign-in accepts.
    func merchant(forAPIKeyHash keyHash: String) async throws -> MerchantRecord?
    /// The API key with this SHA-256 and its merchant, revoked or expired or not (the caller judges by its clock).
    func apiKey(forHash keyHash: String) async throws -> (key: APIKeyInfo, merchant: MerchantRecord)?
    /// The key whose earlier secret had this SHA-256, and when a rotation replaced it; `nil` when no rotation did.
    func retiredAPIKey(forHash keyHash: String) async throws -> (keyID: String, retiredAt: Date)?
    /// A merchant's API keys, revoked ones included, oldest first.
    func apiKeys(merchantID: String) async throws -> [APIKeyInfo]
    /// Revokes one of the merchant's API keys (a second revocation keeps the first date); `nil` when it has none with
    /// this id.
    func revokeAPIKey(merchantID: String, id: String, at date: Date) async throws -> APIKeyInfo?
    /// Gives one of the merchant's unrevoked keys a new secret (by its SHA-256 and prefix): the old secret stops
    /// working in the same write. `nil` when the merchant has no unrevoked key with this id.
    func replaceAPIKeySecret(merchantID: String, id: String, keyHash: String, prefix: String) async throws -> APIKeyInfo?
    /// Records when keys were used, in one transaction; a key keeps a recorded use less than `interval` before the
    /// new one (so instances racing write about once per interval).
    func recordAPIKeyUses(_ uses: [String: Date], unlessUsedWithin interval: TimeInterval) async throws
}

extension APIKeyStore {
    /// Stores a secret API key (every scope, no expiry) under a new id.
    public func addAPIKey(merchantID: String, keyHash: String, prefix: String) async throws {
        try await addAPIKey(
            APIKeyInfo(id: APIKeyInfo.newID(), merchantID: merchantID, name: "secret key", prefix: prefix, createdAt: Date()), keyHash: keyHash)
    }
}
