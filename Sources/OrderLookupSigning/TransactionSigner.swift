import JWTKit

/// Signs transaction payloads as compact JWS (ES256) with the chain in `x5c`, the format Apple's `SignedDataVerifier`
/// reads.
public struct TransactionSigner: Sendable {
    private let keys: JWTKeyCollection
    private let header: JWTHeader

    /// A signer with `chain`'s leaf key.
    ///
    /// - Throws: ``LookupSigningError/invalidChain(reason:)`` when the chain cannot be encoded.
    public init(chain: LookupSigningChain) async throws(LookupSigningError) {
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(backing: chain.leafKey)
        } catch {
            throw .invalidChain(reason: "the leaf key is not usable for ES256")
        }
        keys = await JWTKeyCollection().add(ecdsa: key)
        // jwt-kit takes x5c as PEM and writes each certificate as standard Base64 DER, the form Apple's verifier needs.
        let pem = try chain.pem
        header = ["x5c": .array([pem.leafCertificate, pem.intermediateCertificate, pem.rootCertificate].map { .string($0) })]
    }

    /// The compact JWS of `payload`.
    ///
    /// - Throws: ``LookupSigningError/signingFailed(reason:)``.
    public func sign(_ payload: JWSTransactionDecodedPayload) async throws(LookupSigningError) -> String {
        do {
            return try await keys.sign(payload, header: header)
        } catch {
            throw .signingFailed(reason: "\(error)")
        }
    }

    /// The compact JWS of each payload, in order.
    ///
    /// - Throws: ``LookupSigningError/signingFailed(reason:)``.
    public func sign(_ payloads: [JWSTransactionDecodedPayload]) async throws(LookupSigningError) -> [String] {
        var signed: [String] = []
        signed.reserveCapacity(payloads.count)
        for payload in payloads { signed.append(try await sign(payload)) }
        return signed
    }
}
