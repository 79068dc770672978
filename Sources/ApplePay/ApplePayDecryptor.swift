import Crypto
import Foundation
import X509
import _CryptoExtras

/// A verified and decrypted payment token.
public struct ApplePayDecryptedToken: Sendable {
    /// The token format it came in.
    public var version: ApplePayPaymentData.Version
    /// The transaction identifier (hex), unique per payment: use it to detect a token sent twice.
    public var transactionId: String
    /// The merchant identifier of the payment-processing certificate that decrypted the token.
    public var merchantIdentifier: String
    /// When Apple signed the token (the CMS signingTime).
    public var signingTime: Date
    /// The decrypted payment.
    public var payload: ApplePayPayload
}

/// Verifies and decrypts Apple Pay payment tokens for a merchant's payment-processing identities.
///
/// Every token is checked in this order, each failure with its own ``ApplePayError/Code``: the JSON
/// (`malformed_token`), the identity named by `header.publicKeyHash` (`no_matching_key`), the certificate chain
/// (`untrusted_chain`, `missing_marker_extension`), the CMS signature (`invalid_signature`), the signing time
/// (`signing_time_out_of_range`), then decryption (`decryption_failed`).
public struct ApplePayDecryptor: Sendable {
    /// The merchant's payment-processing identities; replace them on a copy to share the remembered chains.
    public var identities: [ApplePayPaymentIdentity]
    private let verifier: SignatureVerifier
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - identities: the merchant's payment-processing identities; several during a certificate rotation.
    ///   - additionalTrustRoots: roots trusted next to the pinned Apple Root CA - G3 (tests and certification only).
    ///   - signingTimeTolerance: how far the CMS signing time may be from now, in seconds (Apple: 5 minutes).
    ///   - now: the clock, injectable so that old tokens can be checked at their time.
    public init(
        identities: [ApplePayPaymentIdentity], additionalTrustRoots: [Certificate] = [],
        signingTimeTolerance: TimeInterval = 300, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.identities = identities
        self.verifier = SignatureVerifier(
            trustRoots: [AppleRootCA.g3] + additionalTrustRoots, signingTimeTolerance: signingTimeTolerance)
        self.now = now
    }

    /// Verifies the token's signature (chain, marker extensions, signing time) without decrypting it.
    public func verifySignature(of paymentData: ApplePayPaymentData) async throws(ApplePayError) -> ApplePaySignature {
        try await verifier.verify(paymentData, now: now())
    }

    /// Verifies and decrypts `token`.
    public func decrypt(_ token: ApplePayToken) async throws(ApplePayError) -> ApplePayDecryptedToken {
        let paymentData = token.paymentData
        guard let identity = identities.first(where: { $0.publicKeyHash == paymentData.publicKeyHash }) else {
            throw ApplePayError(
                .noMatchingKey,
                "no payment-processing identity has the public key hash \(Data(paymentData.publicKeyHash).base64EncodedString())")
        }
        let signature = try await verifier.verify(paymentData, now: now())
        let plaintext = try Self.decrypt(paymentData, with: identity)
        return ApplePayDecryptedToken(
            version: paymentData.version, transactionId: paymentData.transactionId,
            merchantIdentifier: identity.merchantIdentifier, signingTime: signature.signingTime,
            payload: try ApplePayPayload(plaintext: plaintext))
    }

    static func decrypt(_ paymentData: ApplePayPaymentData, with identity: ApplePayPaymentIdentity) throws(ApplePayError) -> [UInt8] {
        let key: SymmetricKey
        switch (paymentData.keyMaterial, identity.privateKey) {
        case (.ephemeralPublicKey(let ephemeral), .p256(let privateKey)):
            let publicKey: P256.KeyAgreement.PublicKey
            let shared: SharedSecret
            do {
                publicKey = try P256.KeyAgreement.PublicKey(derRepresentation: ephemeral)
                shared = try privateKey.sharedSecretFromKeyAgreement(with: publicKey)
            } catch {
                throw ApplePayError(.malformedToken, "header.ephemeralPublicKey is not a P-256 public key")
            }
            key = symmetricKey(sharedSecret: shared, merchantIdentifierHash: identity.merchantIdentifierHash)
        case (.wrappedKey(let wrapped), .rsa(let privateKey)):
            guard let unwrapped = try? privateKey.decrypt(wrapped, padding: .PKCS1_OAEP_SHA256), unwrapped.count == 16 else {
                throw ApplePayError(.decryptionFailed, "header.wrappedKey does not unwrap to an AES-128 key with the merchant's RSA key")
            }
            key = SymmetricKey(data: unwrapped)
        default:
            throw ApplePayError(.noMatchingKey, "a \(paymentData.version.rawValue) token cannot be decrypted with this identity's key type")
        }
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: zeroIV), ciphertext: paymentData.data.dropLast(16), tag: paymentData.data.suffix(16))
            return [UInt8](try AES.GCM.open(box, using: key))
        } catch {
            throw ApplePayError(.decryptionFailed, "the data does not decrypt with the merchant's key (GCM tag mismatch)")
        }
    }

    /// Apple's 16-byte all-zero GCM IV (swift-crypto accepts nonces longer than 12 bytes).
    private static let zeroIV = [UInt8](repeating: 0, count: 16)

    /// NIST SP 800-56A concatenation KDF, one SHA-256 round with the counter first: SHA-256(00000001 ‖ Z ‖ 0D ‖
    /// "id-aes256-GCM" ‖ "Apple" ‖ SHA-256(merchant identifier)). Z is the fixed-length 32-byte x-coordinate.
    /// (swift-crypto's x963 KDF puts the counter after Z, so it does not fit.)
    public static func symmetricKey(sharedSecret: some ContiguousBytes, merchantIdentifierHash: [UInt8]) -> SymmetricKey {
        var hash = SHA256()
        hash.update(data: [0, 0, 0, 1])
        sharedSecret.withUnsafeBytes { hash.update(bufferPointer: $0) }
        hash.update(data: [0x0D] + Array("id-aes256-GCM".utf8) + Array("Apple".utf8))
        hash.update(data: merchantIdentifierHash)
        return SymmetricKey(data: hash.finalize())
    }
}
