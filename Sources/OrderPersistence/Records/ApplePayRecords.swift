import Foundation

/// A merchant's Apple Pay Payment Processing certificate and private key, as stored.
public struct PaymentIdentityRecord: Sendable, Hashable {
    /// Lowercase UUID string.
    public var id: String
    /// The merchant that owns it.
    public var merchantID: String
    /// The merchant identifier the certificate names (`merchant.com.example`).
    public var merchantIdentifier: String
    /// Base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as tokens carry it in `header.publicKeyHash`.
    public var publicKeyHash: String
    /// When the certificate expires.
    public var notValidAfter: Date
    /// The certificate, PEM.
    public var certificatePEM: String
    /// The private key, PEM (PKCS#8 or SEC 1 for P-256, PKCS#1 or PKCS#8 for RSA).
    public var privateKeyPEM: String
    /// When it was added, by the store's clock.
    public var createdAt: Date

    /// A record with every field given.
    public init(
        id: String, merchantID: String, merchantIdentifier: String, publicKeyHash: String, notValidAfter: Date, certificatePEM: String,
        privateKeyPEM: String, createdAt: Date
    ) {
        self.id = id
        self.merchantID = merchantID
        self.merchantIdentifier = merchantIdentifier
        self.publicKeyHash = publicKeyHash
        self.notValidAfter = notValidAfter
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.createdAt = createdAt
    }
}

/// A merchant's Apple Pay Merchant Identity certificate (PKCS#12) and what merchant validation sends with it.
public struct ApplePayMerchantIdentityRecord: Sendable, Hashable {
    /// The merchant it belongs to.
    public var merchantID: String
    /// The merchant identifier sent to Apple's gateway.
    public var merchantIdentifier: String
    /// The name Apple Pay shows, at most 64 UTF-8 bytes.
    public var displayName: String
    /// The domains registered for the certificate; a session is only requested for one of them.
    public var domains: [String]
    /// The certificate and its key as a PKCS#12 file.
    public var pkcs12: [UInt8]
    /// The PKCS#12 password.
    public var password: String
    /// When it was last replaced.
    public var updatedAt: Date

    /// A record with every field given.
    public init(
        merchantID: String, merchantIdentifier: String, displayName: String, domains: [String], pkcs12: [UInt8], password: String,
        updatedAt: Date
    ) {
        self.merchantID = merchantID
        self.merchantIdentifier = merchantIdentifier
        self.displayName = displayName
        self.domains = domains
        self.pkcs12 = pkcs12
        self.password = password
        self.updatedAt = updatedAt
    }
}
