import Crypto
import Foundation
@_spi(CMS) import X509
import _CryptoExtras

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An RSA identity's detached CMS signature as a template: one made by swift-certificates' `CMS.sign` at load, in
/// which each package's signature changes only three fixed-length fields (the manifest's digest and the signing time
/// in the signed attributes, and the signature itself, as long as the modulus). Filling them in costs two SHA-256
/// hashes and the private-key operation, where encoding the whole SignedData again made a light package take about 12 %
/// longer (`ordertrack bench package`, alternated, both with BoringSSL). Template and library give the same bytes: RSA PKCS #1 v1.5 signatures are deterministic, and
/// a test compares them over many times and contents. ECDSA signatures vary in length, so EC identities sign with
/// `CMS.sign` each time.
struct RSASignatureTemplate: Sendable {
    private enum PrivateKey: Sendable {
        case openSSL(SystemRSAKey)
        case boringSSL(_RSA.Signing.PrivateKey)
    }

    private let key: PrivateKey
    /// A whole detached signature made at load, which each signature copies.
    private let template: [UInt8]
    /// Where the signed attributes' content (after their `[0]` header) starts in `template`.
    private let attributesOffset: Int
    /// Where the signature value starts in `template`: it ends the encoding.
    private let signatureOffset: Int

    /// The template of `key`'s signatures with these certificates embedded, or nil where `CMS.sign` writes something
    /// this does not recognise (then each signature is made by `CMS.sign`). Signatures are made by `openSSL` when it
    /// signs the probe as BoringSSL does, otherwise by BoringSSL.
    init?(
        key: _RSA.Signing.PrivateKey, certificate: Certificate, intermediates: [Certificate], openSSL: SystemOpenSSL? = .shared
    ) {
        // Any time and content would do: the attributes searched for carry the content's digest.
        let probeTime = Date(timeIntervalSince1970: 981_173_106) // 2001-02-03T04:05:06Z
        let probeContent = Array("OrderTrack signature template".utf8)
        guard
            let probe = try? CMS.sign(
                probeContent, signatureAlgorithm: .sha256WithRSAEncryption, additionalIntermediateCertificates: intermediates,
                certificate: certificate, privateKey: Certificate.PrivateKey(key), signingTime: probeTime, detached: true),
            let attributes = Self.signedAttributes(digest: Array(SHA256.hash(data: probeContent)), time: probeTime)
        else { return nil }
        let content = attributes[Self.attributesHeaderLength...]
        let header: [UInt8] = [0xA0, UInt8(content.count)]
        let found = probe.ranges(of: header + content)
        guard found.count == 1 else { return nil }
        let signatureLength = (key.keySizeInBits + 7) / 8
        let expected = Array(probe.suffix(signatureLength))
        let digest = SHA256.hash(data: attributes)
        // The probe ends with BoringSSL's signature of these attributes. A library whose signature of them is those
        // bytes shows the signature's place too: the system's OpenSSL if it does, else BoringSSL itself.
        if let openSSL = SystemRSAKey(pkcs1DER: Array(key.derRepresentation), library: openSSL), openSSL.signatureLength == signatureLength,
            openSSL.signature(sha256Digest: Array(digest)) == expected
        {
            self.key = .openSSL(openSSL)
        } else if (try? key.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation).map(Array.init) == expected {
            self.key = .boringSSL(key)
        } else {
            return nil
        }
        self.template = probe
        self.attributesOffset = found[0].lowerBound + header.count
        self.signatureOffset = probe.count - signatureLength
    }

    /// Which library makes the signatures: "OpenSSL" or "BoringSSL".
    var library: String {
        switch key {
        case .openSSL: "OpenSSL"
        case .boringSSL: "BoringSSL"
        }
    }

    /// The detached signature over `content`, or nil for a time UTCTime cannot hold (before 1950 or after 2049; `CMS.sign`
    /// says why).
    func sign(_ content: [UInt8], signingTime: Date) throws(SigningError) -> [UInt8]? {
        guard let attributes = Self.signedAttributes(digest: Array(SHA256.hash(data: content)), time: signingTime) else {
            return nil
        }
        let signature = try self.signature(of: SHA256.hash(data: attributes))
        var output = template
        output.replaceSubrange(
            attributesOffset..<attributesOffset + attributes.count - Self.attributesHeaderLength,
            with: attributes[Self.attributesHeaderLength...])
        output.replaceSubrange(signatureOffset..., with: signature)
        return output
    }

    /// The PKCS #1 v1.5 signature of a SHA-256 digest: the one private-key operation in each CMS signature.
    func signature(of digest: SHA256Digest) throws(SigningError) -> [UInt8] {
        switch key {
        case .openSSL(let key):
            guard let signature = key.signature(sha256Digest: Array(digest)) else {
                throw .signingFailed(reason: "OpenSSL could not sign with the RSA key")
            }
            return signature
        case .boringSSL(let key):
            do {
                return Array(try key.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation)
            } catch {
                throw .signingFailed(reason: "\(error)")
            }
        }
    }

    private static let attributesHeaderLength = 2

    /// The DER of the signed attributes as `CMS.sign` writes them (contentType, signingTime, messageDigest, in the
    /// order DER sorts a SET OF), with the universal SET tag the signature covers.
    private static func signedAttributes(digest: [UInt8], time: Date) -> [UInt8]? {
        guard let utcTime = utcTime(time) else { return nil }
        let pkcs9: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09]
        var bytes: [UInt8] = [0x31, 0x69]
        // contentType: id-data
        bytes += [0x30, 0x18] + pkcs9 + [0x03, 0x31, 0x0B, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
        // signingTime: UTCTime
        bytes += [0x30, 0x1C] + pkcs9 + [0x05, 0x31, 0x0F, 0x17, 0x0D] + utcTime
        // messageDigest: OCTET STRING of the SHA-256 digest
        bytes += [0x30, 0x2F] + pkcs9 + [0x04, 0x31, 0x22, 0x04, 0x20] + digest
        return bytes
    }

    /// `YYMMDDHHMMSSZ` of the time rounded to the second, as swift-certificates writes a signing time.
    private static func utcTime(_ date: Date) -> [UInt8]? {
        var seconds = time_t(date.timeIntervalSince1970.rounded())
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return nil }
        let year = Int(parts.tm_year) + 1900
        guard (1950...2049).contains(year) else { return nil }
        var text: [UInt8] = []
        text.reserveCapacity(13)
        for value in [year % 100, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)] {
            text.append(UInt8(ascii: "0") + UInt8(value / 10))
            text.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        text.append(UInt8(ascii: "Z"))
        return text
    }
}
