/// Everything that can go wrong while loading a signing identity or signing with it.
///
/// Every message says what failed and, where there is one, how to fix it. Messages never contain
/// passwords or key material.
public enum SigningError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A PEM block could not be decoded. `block` is 1-based, counted over the text that was given.
    case malformedPEM(source: String, block: Int, reason: String)
    /// No certificate was found where one was expected.
    case noCertificate(source: String)
    /// No private key was found where one was expected.
    case noPrivateKey(source: String)
    /// More than one private key was found; the identity needs exactly one.
    case multiplePrivateKeys(source: String, count: Int)
    /// A certificate's DER could not be parsed.
    case malformedCertificate(source: String, reason: String)
    /// A private key's structure could not be parsed.
    case malformedPrivateKey(source: String, reason: String)
    /// The key is encrypted and no password was given.
    case passwordRequired(source: String)
    /// The password does not open the key or container.
    case wrongPassword(source: String)
    /// An algorithm (identified by its OID) that this library does not implement.
    case unsupportedAlgorithm(oid: String, name: String, context: String, fix: String)
    /// The key type or size cannot sign order packages.
    case unsupportedKey(source: String, reason: String)
    /// No certificate matches the private key's public key.
    case keyCertificateMismatch(certificates: [String])
    /// A key derivation asks for more iterations than real exporters use (a file made to load for seconds or hours).
    case excessiveIterations(context: String, iterations: Int, maximum: Int)
    /// A PKCS#12 file is not structurally valid.
    case malformedPKCS12(reason: String)
    /// A file or directory could not be read or written.
    case fileAccess(path: String, reason: String)
    /// The cryptographic signing operation itself failed.
    case signingFailed(reason: String)
    /// Creating a development identity failed.
    case developmentIdentityFailed(reason: String)

    /// What failed and, where there is one, the fix; never a password or key material.
    public var description: String {
        switch self {
        case .malformedPEM(let source, let block, let reason):
            return "Malformed PEM in \(source), block \(block): \(reason)."
        case .noCertificate(let source):
            return "No certificate found in \(source). Provide the Order Type ID certificate as a PEM "
                + "'-----BEGIN CERTIFICATE-----' block or inside the PKCS#12 file."
        case .noPrivateKey(let source):
            return "No private key found in \(source). Expected a PEM block labelled 'PRIVATE KEY', "
                + "'ENCRYPTED PRIVATE KEY', 'RSA PRIVATE KEY' or 'EC PRIVATE KEY', or a key bag in a PKCS#12 file."
        case .multiplePrivateKeys(let source, let count):
            return "\(source) contains \(count) private keys; a signing identity needs exactly one."
        case .malformedCertificate(let source, let reason):
            return "Could not parse the certificate in \(source): \(reason)."
        case .malformedPrivateKey(let source, let reason):
            return "Could not parse the private key in \(source): \(reason)."
        case .passwordRequired(let source):
            return "The private key in \(source) is encrypted; supply its password."
        case .wrongPassword(let source):
            return "Wrong password for \(source): decryption or the integrity check failed."
        case .unsupportedAlgorithm(let oid, let name, let context, let fix):
            return "Unsupported algorithm \(name) (OID \(oid)) in \(context). \(fix)"
        case .unsupportedKey(let source, let reason):
            return "Unsupported private key in \(source): \(reason)."
        case .keyCertificateMismatch(let certificates):
            let list = certificates.isEmpty ? "(none)" : certificates.joined(separator: "; ")
            return "The private key does not belong to any of the given certificates (\(list)). "
                + "Use the key that was generated with the certificate signing request for this certificate."
        case .excessiveIterations(let context, let iterations, let maximum):
            return "The key derivation for \(context) asks for \(iterations) iterations, more than the \(maximum) this "
                + "server accepts (OpenSSL and Keychain use 2,048 to 600,000). Export it again with fewer, e.g. "
                + "'openssl pkcs12 -export -iter 600000'."
        case .malformedPKCS12(let reason):
            return "Malformed PKCS#12 file: \(reason)."
        case .fileAccess(let path, let reason):
            return "Cannot access \(path): \(reason)."
        case .signingFailed(let reason):
            return "Signing failed: \(reason)."
        case .developmentIdentityFailed(let reason):
            return "Could not create the development identity: \(reason)."
        }
    }
}
