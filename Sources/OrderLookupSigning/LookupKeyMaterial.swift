import Crypto

/// A new lookup key, as App Store Connect hands out API keys: a P-256 key whose private half goes to the merchant once,
/// as a `.p8` file, and whose public half the server keeps.
public struct LookupKeyMaterial: Sendable {
    /// Ten characters of `A-Z0-9`, like App Store Connect key identifiers; the token header's `kid`.
    public let keyId: String
    /// The private key, PKCS#8 PEM (the `.p8` contents). Show once, never store or log.
    public let privateKeyPEM: String
    /// The public key, SubjectPublicKeyInfo PEM, for the server to keep.
    public let publicKeyPEM: String

    /// Makes a key with a fresh key pair and identifier, both from the system's CSPRNG.
    public static func generate() -> LookupKeyMaterial {
        let key = P256.Signing.PrivateKey()
        return LookupKeyMaterial(
            keyId: randomIdentifier(length: 10), privateKeyPEM: key.pemRepresentation,
            publicKeyPEM: key.publicKey.pemRepresentation)
    }

    /// A random string over `A-Z0-9`, by rejection sampling so every character is equally likely.
    public static func randomIdentifier(length: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
