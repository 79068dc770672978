import Foundation
import SwiftASN1
import WireFormats
import X509

/// The parts of a detached CMS SignedData (RFC 5652 §5) that token verification needs, read from BER.
///
/// Hand-written rather than swift-certificates' CMS reader, which refuses Apple's real tokens: their
/// `digestAlgorithm` writes SHA-256 with explicit NULL parameters ("Digest and signature algorithm mismatch"), older
/// ones list certificates out of DER SET OF order, and `openssl cms -sign` output uses constructed OCTET STRINGs.
/// Only what the verifier uses is read; everything else in the structure is skipped, not trusted.
struct DetachedSignedData {
    /// Every certificate the signature carries.
    var certificates: [Certificate]
    /// The certificate the signer info names (by issuer and serial number, or by subject key identifier).
    var signer: Certificate
    /// The signer certificate's DER, as carried.
    var signerDER: [UInt8]
    var signatureAlgorithm: Certificate.SignatureAlgorithm
    var signature: [UInt8]
    /// The signed attributes as signed: their DER with the SET OF tag (RFC 5652 §5.4).
    var signedAttributes: [UInt8]
    /// The `messageDigest` attribute.
    var messageDigest: [UInt8]
    /// The `signingTime` attribute, when present.
    var signingTime: Date?

    private static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    private static let messageDigestOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    private static let signingTimeOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 5]
    private static let sha256OID: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    private static let ecdsaWithSHA256OID: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    private static let ecPublicKeyOID: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    private static let sha256WithRSAOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 11]
    private static let contextZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    private static let contextOne = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    /// Reads `bytes`; throws ``ApplePayError/Code/invalidSignature`` saying which part is missing or malformed.
    /// `certificate` parses each carried certificate's DER (a verifier passes a cache: Apple signs with few leaves).
    init(ber bytes: [UInt8], certificate: (ArraySlice<UInt8>) throws -> Certificate = { try Certificate(derEncoded: Array($0)) })
        throws(ApplePayError)
    {
        do {
            let contentInfo = try Self.children(of: try BER.parse(bytes), "ContentInfo")
            guard contentInfo.count == 2, try ASN1ObjectIdentifier(derEncoded: contentInfo[0]) == Self.signedDataOID,
                contentInfo[1].identifier == Self.contextZero
            else { throw Self.invalid("the signature is not a CMS SignedData") }
            guard let signedDataNode = try Self.children(of: contentInfo[1], "content").first else {
                throw Self.invalid("the SignedData is empty")
            }
            let fields = try Self.children(of: signedDataNode, "SignedData")
            // version, digestAlgorithms, encapContentInfo, [0] certificates, [1] crls, signerInfos
            guard fields.count >= 4, let signerInfos = fields.last else { throw Self.invalid("the SignedData lacks fields") }
            guard let certificateSet = fields.dropFirst(3).first(where: { $0.identifier == Self.contextZero }) else {
                throw Self.invalid("the SignedData carries no certificates")
            }
            let encoded = try Self.children(of: certificateSet, "certificates").map(\.encodedBytes)
            certificates = try encoded.map(certificate)
            let infos = try Self.children(of: signerInfos, "signerInfos")
            guard infos.count == 1 else { throw Self.invalid("the signature has \(infos.count) signers; Apple uses one") }
            let info = try Self.children(of: infos[0], "SignerInfo")
            // version, sid, digestAlgorithm, [0] signedAttrs, signatureAlgorithm, signature, [1] unsignedAttrs
            guard info.count >= 6, info[3].identifier == Self.contextZero else {
                throw Self.invalid("the signer info has no signed attributes")
            }
            let digest = try Self.algorithm(info[2])
            guard digest == Self.sha256OID else { throw Self.invalid("the digest algorithm \(digest) is not SHA-256") }
            let signerIndex = try Self.signer(named: info[1], among: certificates)
            signer = certificates[signerIndex]
            signerDER = Array(encoded[signerIndex])
            switch try Self.algorithm(info[4]) {
            // Signers built on Security.framework write the key's algorithm (id-ecPublicKey) for ECDSA.
            case Self.ecdsaWithSHA256OID, Self.ecPublicKeyOID: signatureAlgorithm = .ecdsaWithSHA256
            case Self.sha256WithRSAOID: signatureAlgorithm = .sha256WithRSAEncryption
            case let other: throw Self.invalid("the signature algorithm \(other) is neither ECDSA nor RSA with SHA-256")
            }
            signature = try Self.octets(info[5])

            // The signature covers the attributes' DER with the universal SET OF tag instead of the implicit [0].
            var attributes = Array(info[3].encodedBytes)
            attributes[0] = 0x31
            signedAttributes = attributes
            var digestValue: [UInt8]?
            var time: Date?
            for attribute in try Self.children(of: info[3], "signedAttrs") {
                let parts = try Self.children(of: attribute, "Attribute")
                guard parts.count == 2, let value = try Self.children(of: parts[1], "attrValues").first else { continue }
                switch try ASN1ObjectIdentifier(derEncoded: parts[0]) {
                case Self.messageDigestOID: digestValue = try Self.octets(value)
                case Self.signingTimeOID: time = try Self.date(value)
                default: continue
                }
            }
            guard let digestValue else { throw Self.invalid("the signed attributes lack messageDigest") }
            messageDigest = digestValue
            signingTime = time
        } catch let error as ApplePayError {
            throw error
        } catch {
            throw Self.invalid("the signature is not a readable CMS SignedData: \(error)")
        }
    }

    private static func invalid(_ reason: String) -> ApplePayError { ApplePayError(.invalidSignature, reason) }

    private static func children(of node: ASN1Node, _ name: String) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { throw invalid("\(name) is not a constructed value") }
        return Array(nodes)
    }

    /// An AlgorithmIdentifier's algorithm (its parameters, NULL or absent for the algorithms accepted, are ignored).
    private static func algorithm(_ node: ASN1Node) throws -> ASN1ObjectIdentifier {
        guard let oid = try children(of: node, "AlgorithmIdentifier").first else { throw invalid("an algorithm identifier is empty") }
        return try ASN1ObjectIdentifier(derEncoded: oid)
    }

    /// An OCTET STRING's bytes, primitive or (BER) constructed from primitive segments.
    private static func octets(_ node: ASN1Node) throws -> [UInt8] {
        switch node.content {
        case .primitive(let bytes): return Array(bytes)
        case .constructed(let segments): return try segments.flatMap { try octets($0) }
        }
    }

    /// The index of the certificate `sid` names.
    private static func signer(named sid: ASN1Node, among certificates: [Certificate]) throws -> Int {
        let found: Int?
        if sid.identifier == contextZero {
            guard case .primitive(let keyIdentifier) = sid.content else { throw invalid("the signer's key identifier is malformed") }
            found = certificates.firstIndex { certificate in
                (try? certificate.extensions.subjectKeyIdentifier)?.keyIdentifier == keyIdentifier
            }
        } else {
            let parts = try children(of: sid, "IssuerAndSerialNumber")
            guard parts.count == 2 else { throw invalid("the signer's issuer and serial number are malformed") }
            let issuer = try DistinguishedName(derEncoded: parts[0])
            let serial = try ArraySlice<UInt8>(derEncoded: parts[1])
            let serialNumber = Certificate.SerialNumber(bytes: serial)
            found = certificates.firstIndex { $0.issuer == issuer && $0.serialNumber == serialNumber }
        }
        guard let found else { throw invalid("the signature does not carry the certificate of its signer") }
        return found
    }

    private static func date(_ node: ASN1Node) throws -> Date {
        let (year, month, day, hours, minutes, seconds): (Int, Int, Int, Int, Int, Double)
        if node.identifier == .utcTime {
            let time = try UTCTime(derEncoded: node)
            (year, month, day, hours, minutes, seconds) = (time.year, time.month, time.day, time.hours, time.minutes, Double(time.seconds))
        } else {
            let time = try GeneralizedTime(derEncoded: node)
            (year, month, day, hours, minutes, seconds) = (
                time.year, time.month, time.day, time.hours, time.minutes, Double(time.seconds) + time.fractionalSeconds
            )
        }
        let days = CivilDate.daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hours * 3_600 + minutes * 60) + seconds)
    }
}

extension ApplePayPaymentData {
    /// The certificates the token's signature carries (Apple's signing leaf and intermediate), read without verifying
    /// anything: for diagnostics, not for trust decisions.
    ///
    /// - Throws: ``ApplePayError/Code/invalidSignature`` when the signature is not a readable CMS SignedData.
    public func signatureCertificates() throws(ApplePayError) -> [Certificate] {
        try DetachedSignedData(ber: signature).certificates
    }
}
