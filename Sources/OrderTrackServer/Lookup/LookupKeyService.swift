import Foundation
import OrderLookupSigning
import OrderPersistence

/// A lookup key as created: the stored record and the private key, which exists only in this value.
public struct CreatedLookupKey: Sendable {
    /// What the store keeps: key id, issuer id, bundle id, public key.
    public var record: LookupKeyRecord
    /// The `.p8` contents; handed to the merchant once, never stored or logged.
    public var privateKeyPEM: String
}

/// Creates, lists and revokes merchants' lookup keys; shared by the merchant API, the command line and the
/// development bootstrap.
public struct LookupKeyService: Sendable {
    let store: any LookupStore
    let now: @Sendable () -> Date

    /// A service over `store`, dating keys and revocations by `now`.
    public init(store: any LookupStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// Longest bundle id accepted (App Store Connect allows 155 characters).
    static let maximumBundleIDLength = 155

    /// Creates a key for `merchantID`. The issuer id is a new UUID unless given (App Store Connect has one issuer per
    /// team, so a merchant may reuse its own).
    ///
    /// - Throws: ``OrderTrackError/Code/invalidLookupKey`` for a malformed bundle or issuer id,
    ///   ``OrderStoreError/merchantNotFound(id:)``.
    public func create(merchantID: String, bundleID: String, issuerID: String? = nil) async throws -> CreatedLookupKey {
        guard Self.isValidBundleID(bundleID) else {
            throw OrderTrackError(
                .invalidLookupKey, "bundleId must be 1–\(Self.maximumBundleIDLength) characters of A–Z a–z 0–9 . -, like com.example.shop",
                field: "bundleId")
        }
        let issuer = issuerID ?? UUID().uuidString.lowercased()
        guard UUID(uuidString: issuer) != nil else {
            throw OrderTrackError(.invalidLookupKey, "issuerId must be a UUID, as App Store Connect issuer ids are", field: "issuerId")
        }
        let material = LookupKeyMaterial.generate()
        let record = LookupKeyRecord(
            keyID: material.keyId, merchantID: merchantID, issuerID: issuer, bundleID: bundleID, publicKeyPEM: material.publicKeyPEM,
            createdAt: now())
        try await store.addLookupKey(record)
        return CreatedLookupKey(record: record, privateKeyPEM: material.privateKeyPEM)
    }

    /// The merchant's keys, revoked ones included.
    public func list(merchantID: String) async throws -> [LookupKeyRecord] {
        try await store.lookupKeys(merchantID: merchantID)
    }

    /// Revokes one of the merchant's keys.
    ///
    /// - Throws: ``OrderTrackError/Code/notFound`` when the merchant has no key with this id.
    public func revoke(merchantID: String, keyID: String) async throws -> LookupKeyRecord {
        guard let record = try await store.revokeLookupKey(merchantID: merchantID, keyID: keyID, at: now()) else {
            throw OrderTrackError(.notFound, "no lookup key \(keyID) of this merchant")
        }
        return record
    }

    static func isValidBundleID(_ bundleID: String) -> Bool {
        (1...maximumBundleIDLength).contains(bundleID.utf8.count)
            && bundleID.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }
}
