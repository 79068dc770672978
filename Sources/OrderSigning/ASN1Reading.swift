import SwiftASN1

/// Small, throwing accessors over parsed ASN.1 nodes.
///
/// PKCS#12 and encrypted keys arrive from many tools, some of which emit BER (indefinite lengths,
/// constructed OCTET STRINGs), so callers parse with `BER.parse` and read nodes through these helpers.
/// Every failure becomes a `String` reason that the caller wraps in the right `SigningError`.
struct ASN1Failure: Error {
    var reason: String
}

extension ASN1Node {
    /// Parses bytes as BER (a superset of DER).
    static func parse(_ bytes: some Collection<UInt8>, what: String) throws(ASN1Failure) -> ASN1Node {
        do {
            return try BER.parse(Array(bytes))
        } catch {
            throw ASN1Failure(reason: "\(what) is not valid ASN.1 (\(error))")
        }
    }

    /// The children of a constructed node with the given tag.
    func children(_ expected: ASN1Identifier = .sequence, what: String) throws(ASN1Failure) -> [ASN1Node] {
        guard identifier == expected, case .constructed(let nodes) = content else {
            throw ASN1Failure(reason: "\(what): expected \(expected), found \(identifier)")
        }
        return Array(nodes)
    }

    /// The children of a context-specific explicitly tagged wrapper `[tag]`.
    func explicitContent(tag: UInt, what: String) throws(ASN1Failure) -> ASN1Node {
        let wrapper = ASN1Identifier(tagWithNumber: tag, tagClass: .contextSpecific)
        let inner = try children(wrapper, what: what)
        guard inner.count == 1 else {
            throw ASN1Failure(reason: "\(what): [\(tag)] must hold exactly one element, found \(inner.count)")
        }
        return inner[0]
    }

    func objectIdentifier(what: String) throws(ASN1Failure) -> ASN1ObjectIdentifier {
        do {
            return try ASN1ObjectIdentifier(derEncoded: self)
        } catch {
            throw ASN1Failure(reason: "\(what): expected an OBJECT IDENTIFIER (\(error))")
        }
    }

    func integer(what: String) throws(ASN1Failure) -> Int {
        do {
            return try Int(derEncoded: self)
        } catch {
            throw ASN1Failure(reason: "\(what): expected a small INTEGER (\(error))")
        }
    }

    /// OCTET STRING content; accepts the BER constructed form and an implicit tag in place of the universal one.
    func octets(identifier expected: ASN1Identifier = .octetString, what: String) throws(ASN1Failure) -> [UInt8] {
        do {
            return Array(try ASN1OctetString(berEncoded: self, withIdentifier: expected).bytes)
        } catch {
            throw ASN1Failure(reason: "\(what): expected an OCTET STRING (\(error))")
        }
    }
}

/// An AlgorithmIdentifier: `SEQUENCE { algorithm OID, parameters ANY OPTIONAL }`.
struct AlgorithmIdentifierNode {
    var oid: ASN1ObjectIdentifier
    var parameters: ASN1Node?

    init(_ node: ASN1Node, what: String) throws(ASN1Failure) {
        let parts = try node.children(what: what)
        guard let first = parts.first, parts.count <= 2 else {
            throw ASN1Failure(reason: "\(what): an AlgorithmIdentifier has one or two elements, found \(parts.count)")
        }
        oid = try first.objectIdentifier(what: what)
        parameters = parts.count == 2 ? parts[1] : nil
    }

    /// The parameters, which this algorithm requires.
    func requiredParameters(what: String) throws(ASN1Failure) -> ASN1Node {
        guard let parameters else {
            throw ASN1Failure(reason: "\(what): algorithm \(oid) is missing its parameters")
        }
        return parameters
    }
}
