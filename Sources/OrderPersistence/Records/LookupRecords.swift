import Foundation

/// A merchant's order-lookup key, as App Store Connect keys are: a key id, an issuer id and a bundle id, with only the
/// public key stored.
public struct LookupKeyRecord: Sendable, Hashable {
    /// The token header's `kid`.
    public var keyID: String
    /// The merchant whose orders the key looks up.
    public var merchantID: String
    /// The `iss` tokens carry.
    public var issuerID: String
    /// The `bid` tokens carry, and the `bundleId` of the signed transactions.
    public var bundleID: String
    /// The public key, SubjectPublicKeyInfo PEM.
    public var publicKeyPEM: String
    /// When it was created.
    public var createdAt: Date
    /// When it was revoked; a revoked key authorizes nothing.
    public var revokedAt: Date?

    /// A record with every field given.
    public init(
        keyID: String, merchantID: String, issuerID: String, bundleID: String, publicKeyPEM: String, createdAt: Date, revokedAt: Date? = nil
    ) {
        self.keyID = keyID
        self.merchantID = merchantID
        self.issuerID = issuerID
        self.bundleID = bundleID
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// The deployment's transaction-signing chain as stored: the leaf's private key and the three certificates, PEM.
public struct LookupSigningChainRecord: Sendable, Hashable {
    /// The leaf's private key, PKCS#8 PEM. A secret: never logged.
    public var leafPrivateKeyPEM: String
    /// The leaf certificate.
    public var leafCertificatePEM: String
    /// The intermediate certificate.
    public var intermediateCertificatePEM: String
    /// The root certificate that merchants download.
    public var rootCertificatePEM: String
    /// When it was stored.
    public var createdAt: Date

    /// A record with every field given.
    public init(
        leafPrivateKeyPEM: String, leafCertificatePEM: String, intermediateCertificatePEM: String, rootCertificatePEM: String, createdAt: Date
    ) {
        self.leafPrivateKeyPEM = leafPrivateKeyPEM
        self.leafCertificatePEM = leafCertificatePEM
        self.intermediateCertificatePEM = intermediateCertificatePEM
        self.rootCertificatePEM = rootCertificatePEM
        self.createdAt = createdAt
    }
}
