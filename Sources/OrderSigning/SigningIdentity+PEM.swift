import Foundation
import X509

extension SigningIdentity {
    /// Loads an identity from PEM text, entirely in-process.
    ///
    /// - Parameters:
    ///   - certificatePEM: The Order Type ID certificate; may also contain the chain (intermediates).
    ///   - privateKeyPEM: One private key: `PRIVATE KEY` (PKCS#8), `ENCRYPTED PRIVATE KEY` (PKCS#8 with
    ///     PBES2), `RSA PRIVATE KEY` (PKCS#1) or `EC PRIVATE KEY` (SEC1), the last two optionally with
    ///     legacy OpenSSL `Proc-Type`/`DEK-Info` encryption. Certificates found here are used too.
    ///   - keyPassword: The password of an encrypted key.
    ///   - intermediatesPEM: Extra intermediate certificates, typically Apple's WWDR certificate.
    /// - Throws: `SigningError` naming the PEM block, algorithm or mismatch that prevented loading.
    public init(
        certificatePEM: String, privateKeyPEM: String, keyPassword: String? = nil, intermediatesPEM: String? = nil
    ) throws(SigningError) {
        var certificates = try Self.certificates(inPEM: certificatePEM, source: "the certificate PEM")
        let keyBlocks = try PEMBlock.parseAll(privateKeyPEM, source: "the private key PEM")
        var keys: [SigningKey] = []
        for block in keyBlocks {
            switch block.label {
            case "CERTIFICATE":
                certificates.append(try Self.certificate(block, source: "the private key PEM"))
            case "EC PARAMETERS":
                continue // `openssl ecparam -genkey` writes the curve separately; the key names it too.
            default:
                keys.append(try Self.key(block, password: keyPassword, source: "the private key PEM"))
            }
        }
        guard !certificates.isEmpty else { throw .noCertificate(source: "the certificate PEM") }
        guard let key = keys.first else { throw .noPrivateKey(source: "the private key PEM") }
        guard keys.count == 1 else { throw .multiplePrivateKeys(source: "the private key PEM", count: keys.count) }
        let extra =
            try intermediatesPEM.map { text throws(SigningError) in
                try Self.certificates(inPEM: text, source: "the intermediates PEM")
            } ?? []
        try self.init(key: key, certificates: certificates, extraIntermediates: extra)
    }

    /// Every `CERTIFICATE` block in `text`; any other block is an error.
    static func certificates(inPEM text: String, source: String) throws(SigningError) -> [Certificate] {
        var certificates: [Certificate] = []
        for block in try PEMBlock.parseAll(text, source: source) {
            guard block.label == "CERTIFICATE" else {
                throw .malformedPEM(
                    source: source, block: block.index,
                    reason: "expected 'CERTIFICATE', found '\(block.label)'")
            }
            certificates.append(try certificate(block, source: source))
        }
        return certificates
    }

    private static func certificate(_ block: PEMBlock, source: String) throws(SigningError) -> Certificate {
        do {
            return try Certificate(derEncoded: block.der)
        } catch {
            throw .malformedCertificate(source: "\(source), block \(block.index)", reason: "\(error)")
        }
    }

    private static func key(_ block: PEMBlock, password: String?, source: String) throws(SigningError) -> SigningKey {
        let location = "\(source), block \(block.index)"
        switch block.label {
        case "PRIVATE KEY":
            return try SigningKey.fromPKCS8(block.der, source: location)
        case "ENCRYPTED PRIVATE KEY":
            guard let password else { throw .passwordRequired(source: location) }
            let der = try EncryptedPrivateKey.decryptPKCS8(block.der, password: password, source: location)
            return try SigningKey.fromPKCS8(der, source: location)
        case "RSA PRIVATE KEY", "EC PRIVATE KEY":
            var der = block.der
            if block.headers["Proc-Type"]?.contains("ENCRYPTED") == true {
                guard let password else { throw .passwordRequired(source: location) }
                der = try EncryptedPrivateKey.decryptLegacyPEM(block, password: password, source: location)
            }
            return block.label == "RSA PRIVATE KEY"
                ? try SigningKey.rsa(der, source: location) : try SigningKey.sec1(der, source: location)
        default:
            throw .malformedPEM(
                source: source, block: block.index,
                reason: "unexpected '\(block.label)'; expected a certificate or a private key")
        }
    }
}
