import Crypto
import Foundation
import SwiftASN1
import X509

/// A PKCS#12 (`.p12`/`.pfx`) reader (RFC 7292): verifies the password MAC, decrypts encrypted
/// SafeContents and shrouded key bags, and collects keys and X.509 certificates.
enum PKCS12 {
    struct Contents {
        var keys: [SigningKey] = []
        var certificates: [Certificate] = []
    }

    private static let source = "the PKCS#12 file"

    static func read(_ bytes: [UInt8], password: String) throws(SigningError) -> Contents {
        let (authSafe, macData) = try malformedOnFailure { () throws -> ([UInt8], ASN1Node?) in
            let pfx = try ASN1Node.parse(bytes, what: "the PFX structure (is the file truncated or not PKCS#12?)")
                .children(what: "PFX")
            guard pfx.count == 2 || pfx.count == 3 else { throw ASN1Failure(reason: "PFX has \(pfx.count) elements") }
            let version = try pfx[0].integer(what: "PFX.version")
            guard version == 3 else { throw ASN1Failure(reason: "PFX version \(version), expected 3") }
            let info = try pfx[1].children(what: "PFX.authSafe")
            let type = try info.first.orThrow("PFX.authSafe is empty").objectIdentifier(what: "PFX.authSafe.contentType")
            guard type == OID.pkcs7Data else {
                throw SigningError.unsupportedAlgorithm(
                    oid: "\(type)", name: OID.name(type), context: "the integrity mode of \(source)",
                    fix: "Only password integrity is supported; export with 'openssl pkcs12 -export'.")
            }
            guard info.count == 2 else { throw ASN1Failure(reason: "PFX.authSafe has no content") }
            let authSafe = try info[1].explicitContent(tag: 0, what: "PFX.authSafe.content").octets(what: "PFX.authSafe.content")
            return (authSafe, pfx.count == 3 ? pfx[2] : nil)
        }

        var passwordBytes = [PKCS12KeyDerivation.bmpPassword(password)]
        if password.isEmpty {
            passwordBytes.append([]) // Some tools encode an empty password as no bytes at all.
        }
        if let macData {
            try verifyMAC(macData, content: authSafe, candidates: passwordBytes)
        }
        return try malformedOnFailure {
            var contents = Contents()
            let safes = try ASN1Node.parse(authSafe, what: "AuthenticatedSafe").children(what: "AuthenticatedSafe")
            for info in safes {
                let parts = try info.children(what: "AuthenticatedSafe ContentInfo")
                let type = try parts.first.orThrow("empty ContentInfo").objectIdentifier(what: "ContentInfo.contentType")
                guard parts.count == 2 else { throw ASN1Failure(reason: "ContentInfo without content") }
                let content = try parts[1].explicitContent(tag: 0, what: "ContentInfo.content")
                switch type {
                case OID.pkcs7Data:
                    try readSafeContents(content.octets(what: "SafeContents data"), password: password, into: &contents)
                case OID.pkcs7EncryptedData:
                    try readSafeContents(decryptEncryptedData(content, password: password), password: password, into: &contents)
                default:
                    throw SigningError.unsupportedAlgorithm(
                        oid: "\(type)", name: OID.name(type), context: "a content type of \(source)",
                        fix: "Export the identity with 'openssl pkcs12 -export' (password-encrypted contents).")
                }
            }
            return contents
        }
    }

    /// Runs `body`, reporting an ASN.1 or other untyped failure as a malformed PKCS#12 file; a ``SigningError``
    /// passes through as thrown.
    private static func malformedOnFailure<T>(_ body: () throws -> T) throws(SigningError) -> T {
        do {
            return try body()
        } catch let error as ASN1Failure {
            throw .malformedPKCS12(reason: error.reason)
        } catch let error as SigningError {
            throw error
        } catch {
            throw .malformedPKCS12(reason: "\(error)")
        }
    }

    /// `MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }`
    private static func verifyMAC(_ node: ASN1Node, content: [UInt8], candidates: [[UInt8]]) throws(SigningError) {
        let digestOID: ASN1ObjectIdentifier
        let expected: [UInt8]
        let salt: [UInt8]
        var iterations = 1
        do throws(ASN1Failure) {
            let parts = try node.children(what: "MacData")
            guard parts.count == 2 || parts.count == 3 else { throw ASN1Failure(reason: "MacData has \(parts.count) elements") }
            let digestInfo = try parts[0].children(what: "MacData.mac")
            guard digestInfo.count == 2 else { throw ASN1Failure(reason: "MacData.mac has \(digestInfo.count) elements") }
            digestOID = try AlgorithmIdentifierNode(digestInfo[0], what: "MacData.mac.digestAlgorithm").oid
            expected = try digestInfo[1].octets(what: "MacData.mac.digest")
            salt = try parts[1].octets(what: "MacData.macSalt")
            if parts.count == 3 {
                iterations = try parts[2].integer(what: "MacData.iterations")
            }
        } catch {
            throw .malformedPKCS12(reason: error.reason)
        }
        let hash: PKCS12KeyDerivation.Hash
        switch digestOID {
        case OID.sha1: hash = .sha1
        case OID.sha256: hash = .sha256
        case OID.sha384: hash = .sha384
        case OID.sha512: hash = .sha512
        default:
            throw .unsupportedAlgorithm(
                oid: "\(digestOID)", name: OID.name(digestOID), context: "the MAC of \(source)",
                fix: "Re-export with 'openssl pkcs12 -export -macalg sha256'.")
        }
        guard iterations >= 1 else {
            throw .malformedPKCS12(reason: "MAC iteration count \(iterations) is not positive")
        }
        try PasswordBasedEncryption.checkIterations(iterations, in: "the MAC of \(source)")
        for password in candidates {
            let key = PKCS12KeyDerivation.derive(
                hash, purpose: .macKey, password: password, salt: salt, iterations: iterations,
                count: hash.sizes.output)
            if isValidMAC(expected, content: content, key: SymmetricKey(data: key), hash: hash) {
                return
            }
        }
        throw .wrongPassword(source: source)
    }

    /// Constant-time HMAC check.
    private static func isValidMAC(
        _ mac: [UInt8], content: [UInt8], key: SymmetricKey, hash: PKCS12KeyDerivation.Hash
    ) -> Bool {
        switch hash {
        case .sha1: HMAC<Insecure.SHA1>.isValidAuthenticationCode(mac, authenticating: content, using: key)
        case .sha256: HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: content, using: key)
        case .sha384: HMAC<SHA384>.isValidAuthenticationCode(mac, authenticating: content, using: key)
        case .sha512: HMAC<SHA512>.isValidAuthenticationCode(mac, authenticating: content, using: key)
        }
    }

    /// `EncryptedData ::= SEQUENCE { version, EncryptedContentInfo SEQUENCE { contentType, algorithm, [0] IMPLICIT OCTET STRING } }`
    private static func decryptEncryptedData(_ node: ASN1Node, password: String) throws -> [UInt8] {
        let parts = try node.children(what: "EncryptedData")
        guard parts.count >= 2 else { throw ASN1Failure(reason: "EncryptedData has \(parts.count) elements") }
        let info = try parts[1].children(what: "EncryptedContentInfo")
        guard info.count == 3 else { throw ASN1Failure(reason: "EncryptedContentInfo has no encrypted content") }
        let algorithm = try AlgorithmIdentifierNode(info[1], what: "EncryptedContentInfo.contentEncryptionAlgorithm")
        let ciphertext = try info[2].octets(
            identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            what: "EncryptedContentInfo.encryptedContent")
        let plaintext = try PasswordBasedEncryption.decrypt(
            ciphertext, algorithm: algorithm, password: password,
            context: .init(source: source, what: "the certificate encryption"))
        return plaintext
    }

    /// `SafeContents ::= SEQUENCE OF SafeBag`, `SafeBag ::= SEQUENCE { bagId, [0] EXPLICIT bagValue, bagAttributes SET OPTIONAL }`
    private static func readSafeContents(_ der: [UInt8], password: String, into contents: inout Contents) throws {
        for bag in try ASN1Node.parse(der, what: "SafeContents").children(what: "SafeContents") {
            let parts = try bag.children(what: "SafeBag")
            guard parts.count >= 2 else { throw ASN1Failure(reason: "SafeBag has \(parts.count) elements") }
            let bagID = try parts[0].objectIdentifier(what: "SafeBag.bagId")
            let value = try parts[1].explicitContent(tag: 0, what: "SafeBag.bagValue")
            switch bagID {
            case OID.keyBag:
                contents.keys.append(try SigningKey.fromPKCS8(Array(value.encodedBytes), source: source))
            case OID.pkcs8ShroudedKeyBag:
                let der = try EncryptedPrivateKey.decryptPKCS8(Array(value.encodedBytes), password: password, source: source)
                contents.keys.append(try SigningKey.fromPKCS8(der, source: source))
            case OID.certBag:
                let certBag = try value.children(what: "CertBag")
                guard certBag.count == 2 else { throw ASN1Failure(reason: "CertBag has \(certBag.count) elements") }
                guard try certBag[0].objectIdentifier(what: "CertBag.certId") == OID.x509Certificate else { continue }
                let der = try certBag[1].explicitContent(tag: 0, what: "CertBag.certValue").octets(what: "CertBag.certValue")
                do {
                    contents.certificates.append(try Certificate(derEncoded: der))
                } catch {
                    throw SigningError.malformedCertificate(source: source, reason: "\(error)")
                }
            case OID.safeContentsBag:
                try readSafeContents(Array(value.encodedBytes), password: password, into: &contents)
            default:
                continue // CRL and secret bags carry nothing a signing identity needs.
            }
        }
    }
}

extension SigningIdentity {
    /// Loads an identity from a PKCS#12 (`.p12`) file's bytes, entirely in-process.
    ///
    /// Supports password integrity with an HMAC-SHA-1/256/384/512 MAC; PBES2 (PBKDF2 + AES-CBC, the
    /// OpenSSL 3 default) and the legacy SHA-1 3DES and RC2 schemes (`openssl pkcs12 -legacy`, older
    /// Keychain exports). Certificates other than the one matching the key become intermediates.
    /// - Throws: `SigningError.wrongPassword` when the MAC does not verify, or another precise error.
    public init(pkcs12: [UInt8], password: String, intermediatesPEM: String? = nil) throws(SigningError) {
        let contents = try PKCS12.read(pkcs12, password: password)
        guard !contents.certificates.isEmpty else { throw .noCertificate(source: "the PKCS#12 file") }
        guard let key = contents.keys.first else { throw .noPrivateKey(source: "the PKCS#12 file") }
        guard contents.keys.count == 1 else {
            throw .multiplePrivateKeys(source: "the PKCS#12 file", count: contents.keys.count)
        }
        let extra =
            try intermediatesPEM.map { text throws(SigningError) in
                try Self.certificates(inPEM: text, source: "the intermediates PEM")
            } ?? []
        try self.init(key: key, certificates: contents.certificates, extraIntermediates: extra)
    }
}

extension Optional {
    fileprivate func orThrow(_ reason: String) throws(ASN1Failure) -> Wrapped {
        guard let self else { throw ASN1Failure(reason: reason) }
        return self
    }
}
