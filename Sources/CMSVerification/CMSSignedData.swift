import Foundation
import SwiftASN1
import X509

/// A CMS SignedData (RFC 5652 §5) read from BER or DER: versions 1 and 3, signers named by issuer and serial number
/// or by subject key identifier, with or without signed attributes, certificates in any order.
///
/// Hand-written rather than swift-certificates' CMS reader, which accepts only DER, version 1 SignedData and
/// issuerAndSerialNumber signers, and refuses SHA-256 written with explicit NULL parameters (as Apple Pay tokens
/// write it). Only what verification uses is read; everything else in the structure is skipped, not trusted.
public struct CMSSignedData: Sendable {
    /// The SignedData version (1, 3, 4 or 5).
    public var version: Int
    /// Every certificate the signature carries, in the order carried.
    public var certificates: [Certificate]
    /// Each carried certificate's DER, in the same order as `certificates`.
    public var certificateDER: [[UInt8]]
    /// The signer infos.
    public var signerInfos: [CMSSignerInfo]
    /// The encapsulated content, when the signature is not detached.
    public var encapsulatedContent: [UInt8]?

    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    /// id-data, the content type of a detached signature over bytes.
    public static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    static let contentTypeOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
    static let messageDigestOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    static let signingTimeOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 5]
    private static let contextZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    private static let contextOne = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    /// Reads a ContentInfo holding a SignedData from `bytes` (BER or DER).
    ///
    /// `certificate` parses each carried certificate's DER (a caller may pass a cache).
    /// - Throws: ``CMSError/Code/malformed`` saying which part is missing or malformed.
    public init(
        ber bytes: [UInt8], certificate: (ArraySlice<UInt8>) throws -> Certificate = { try Certificate(derEncoded: Array($0)) }
    ) throws(CMSError) {
        do {
            let contentInfo = try Self.children(of: try BER.parse(bytes), "ContentInfo")
            guard contentInfo.count == 2, try ASN1ObjectIdentifier(derEncoded: contentInfo[0]) == Self.signedDataOID,
                contentInfo[1].identifier == Self.contextZero
            else { throw Self.malformed("it is not a CMS SignedData") }
            guard let signedDataNode = try Self.children(of: contentInfo[1], "content").first else {
                throw Self.malformed("the SignedData is empty")
            }
            // version, digestAlgorithms, encapContentInfo, [0] certificates, [1] crls, signerInfos
            let fields = try Self.children(of: signedDataNode, "SignedData")
            guard fields.count >= 4, let signerInfos = fields.last else { throw Self.malformed("the SignedData lacks fields") }
            version = try Int(derEncoded: fields[0])
            let encapsulated = try Self.children(of: fields[2], "EncapsulatedContentInfo")
            encapsulatedContent = try encapsulated.dropFirst().first.map { explicit in
                guard let octets = try Self.children(of: explicit, "eContent").first else { return [] }
                return try Self.octets(octets)
            }
            let certificateSet = fields.dropFirst(3).dropLast().first { $0.identifier == Self.contextZero }
            let encoded = try certificateSet.map { try Self.children(of: $0, "certificates").map(\.encodedBytes) } ?? []
            certificateDER = encoded.map(Array.init)
            certificates = try encoded.map(certificate)
            self.signerInfos = try Self.children(of: signerInfos, "signerInfos").map(Self.signerInfo)
        } catch let error as CMSError {
            throw error
        } catch {
            throw Self.malformed("it is not a readable CMS SignedData: \(error)")
        }
    }

    /// The carried certificate `info` names, or nil when the signature does not carry it.
    public func certificate(of info: CMSSignerInfo) -> Certificate? {
        certificates.first(where: info.names)
    }

    private static func signerInfo(_ node: ASN1Node) throws -> CMSSignerInfo {
        // version, sid, digestAlgorithm, [0] signedAttrs, signatureAlgorithm, signature, [1] unsignedAttrs
        let info = try children(of: node, "SignerInfo")
        guard info.count >= 5 else { throw malformed("a signer info lacks fields") }
        let hasAttributes = info[3].identifier == contextZero
        let rest = info.dropFirst(hasAttributes ? 4 : 3)
        guard rest.count >= 2 else { throw malformed("a signer info lacks its signature") }
        return CMSSignerInfo(
            version: try Int(derEncoded: info[0]), identifier: try identifier(info[1]), digestAlgorithm: try algorithm(info[2]),
            signedAttributes: hasAttributes ? try attributes(info[3]) : nil,
            signatureAlgorithm: try algorithm(rest[rest.startIndex]), signature: try octets(rest[rest.startIndex + 1])
        )
    }

    private static func identifier(_ sid: ASN1Node) throws -> CMSSignerInfo.Identifier {
        if sid.identifier == contextZero {
            return .subjectKeyIdentifier(try octets(sid))
        }
        let parts = try children(of: sid, "IssuerAndSerialNumber")
        guard parts.count == 2 else { throw malformed("the signer's issuer and serial number are malformed") }
        let serial = try ArraySlice<UInt8>(derEncoded: parts[1])
        return .issuerAndSerialNumber(
            issuer: try DistinguishedName(derEncoded: parts[0]), serialNumber: Certificate.SerialNumber(bytes: serial)
        )
    }

    private static func attributes(_ node: ASN1Node) throws -> CMSSignedAttributes {
        // The signature covers the attributes' DER with the universal SET OF tag instead of the implicit [0].
        var signed = Array(node.encodedBytes)
        signed[0] = 0x31
        var result = CMSSignedAttributes(signedBytes: signed)
        for attribute in try children(of: node, "signedAttrs") {
            let parts = try children(of: attribute, "Attribute")
            guard parts.count == 2, let value = try children(of: parts[1], "attrValues").first else { continue }
            switch try ASN1ObjectIdentifier(derEncoded: parts[0]) {
            case contentTypeOID: result.contentType = try ASN1ObjectIdentifier(derEncoded: value)
            case messageDigestOID: result.messageDigest = try octets(value)
            case signingTimeOID: result.signingTime = try CMSTime.date(value)
            default: continue
            }
        }
        return result
    }

    static func malformed(_ reason: String) -> CMSError { CMSError(.malformed, reason) }

    private static func children(of node: ASN1Node, _ name: String) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { throw malformed("\(name) is not a constructed value") }
        return Array(nodes)
    }

    /// An AlgorithmIdentifier's algorithm (its parameters, NULL or absent for the algorithms accepted, are ignored).
    private static func algorithm(_ node: ASN1Node) throws -> ASN1ObjectIdentifier {
        guard let oid = try children(of: node, "AlgorithmIdentifier").first else { throw malformed("an algorithm identifier is empty") }
        return try ASN1ObjectIdentifier(derEncoded: oid)
    }

    /// An OCTET STRING's bytes, primitive or (BER) constructed from segments.
    private static func octets(_ node: ASN1Node) throws -> [UInt8] {
        switch node.content {
        case .primitive(let bytes): return Array(bytes)
        case .constructed(let segments): return try segments.flatMap { try octets($0) }
        }
    }
}
