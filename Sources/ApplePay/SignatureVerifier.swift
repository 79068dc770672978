import Foundation
import SwiftASN1
import Synchronization
@_spi(CMS) @_spi(DisableValidityCheck) @_spi(FixedExpiryValidationTime) import X509

/// What a verified token signature says.
public struct ApplePaySignature: Sendable {
    /// Apple's signing certificate (`ecc-smp-broker-sign_UC4-PROD` or `rsa-smp-broker-sign_UC4-PROD`).
    public var signer: Certificate
    /// The CMS signingTime attribute.
    public var signingTime: Date
}

/// Verifies token signatures as Apple's "Payment token format reference" step 1 says: a detached BER CMS over the
/// decoded header fields and data, signed by a leaf with marker 1.2.840.113635.100.6.29, issued by an intermediate
/// with marker 1.2.840.113635.100.6.2.14, chaining to a trusted root, with a signingTime close to now.
///
/// Chain validation is remembered per signer certificate (Apple signs every token with the same few leaves), so
/// that only the CMS signature itself is checked for each token; the remembered chain's validity period is still
/// checked against the clock every time.
struct SignatureVerifier: Sendable {
    static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 29]
    static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 14]

    let trustRoots: CertificateStore
    let signingTimeTolerance: TimeInterval
    private let validatedChains = ValidatedChains()

    init(trustRoots: [Certificate], signingTimeTolerance: TimeInterval) {
        self.trustRoots = CertificateStore(trustRoots)
        self.signingTimeTolerance = signingTimeTolerance
    }

    func verify(_ paymentData: ApplePayPaymentData, now: Date) async throws(ApplePayError) -> ApplePaySignature {
        var signature = paymentData.signature
        let cms: CMSSignature
        do {
            cms = try CMSSignature(berEncoded: signature)
        } catch {
            guard let sorted = Self.sortingCertificates(in: signature), let parsed = try? CMSSignature(berEncoded: sorted) else {
                throw ApplePayError(.invalidSignature, "the signature is not a CMS SignedData: \(error)")
            }
            signature = sorted
            cms = parsed
        }
        let signers: [CMSSignature.Signer]
        do {
            signers = try cms.signers
        } catch {
            throw ApplePayError(.invalidSignature, "the signature's signer information is unreadable: \(error)")
        }
        let embedded = cms.certificates
        guard signers.count == 1, let signer = signers.first else {
            throw ApplePayError(.invalidSignature, "the signature has \(signers.count) signers with certificates; Apple uses one")
        }
        try await validateChain(of: signer.certificate, intermediates: embedded, now: now)

        let outcome = await CMS.isValidSignature(
            dataBytes: paymentData.signedBytes, signatureBytes: signature,
            trustRoots: CertificateStore([signer.certificate])
        ) {
            // The chain (dates included) was validated above; this checks the signature over the token alone.
            RFC5280Policy.withValidityCheckDisabled()
        }
        switch outcome {
        case .success: break
        case .failure(.invalidCMSBlock(let block)):
            throw ApplePayError(.invalidSignature, "the signature does not verify over the token: \(block.reason)")
        case .failure(.unableToValidateSigner(let failure)):
            throw ApplePayError(.invalidSignature, "the signer certificate is unusable: \(Self.reasons(failure.policyFailures))")
        }

        guard let signingTime = signer.signingTime else {
            throw ApplePayError(.signingTimeOutOfRange, "the signature has no signingTime attribute")
        }
        let skew = now.timeIntervalSince(signingTime)
        guard abs(skew) <= signingTimeTolerance else {
            throw ApplePayError(
                .signingTimeOutOfRange,
                "the token was signed at \(signingTime.formatted(.iso8601)), \(Int(skew.rounded())) s from now "
                    + "(\(now.formatted(.iso8601))); at most \(Int(signingTimeTolerance)) s are accepted")
        }
        return ApplePaySignature(signer: signer.certificate, signingTime: signingTime)
    }

    /// Apple's signatures up to about 2017 list their certificates out of DER SET OF order, which swift-certificates
    /// rejects even when it parses BER. That order means nothing and no signature covers it, so the certificates are
    /// sorted in place (same bytes, same lengths); `nil` when the blob has no such SET to sort.
    static func sortingCertificates(in signature: [UInt8]) -> [UInt8]? {
        guard let root = try? BER.parse(signature), case .constructed(let contentInfo) = root.content,
            let explicit = contentInfo.dropFirst().first, case .constructed(let wrapped) = explicit.content,
            let signedData = wrapped.first, case .constructed(let fields) = signedData.content,
            let certificates = fields.first(where: { $0.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) }),
            case .constructed(let children) = certificates.content, let first = children.first
        else { return nil }
        let encoded = children.map(\.encodedBytes)
        let range = first.encodedBytes.startIndex..<encoded.last!.endIndex
        var sorted = signature
        sorted.replaceSubrange(range, with: encoded.sorted { $0.lexicographicallyPrecedes($1) }.joined())
        return sorted
    }

    private func validateChain(of leaf: Certificate, intermediates: [Certificate], now: Date) async throws(ApplePayError) {
        if let validity = validatedChains[leaf], validity.contains(now) { return }
        var verifier = Verifier(rootCertificates: trustRoots) {
            MarkerExtensionPolicy()
            RFC5280Policy(fixedExpiryValidationTime: now)
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates)) {
        case .validCertificate(let chain):
            let from = chain.map(\.notValidBefore).max() ?? now
            let until = chain.map(\.notValidAfter).min() ?? now
            validatedChains[leaf] = from...max(from, until)
        case .couldNotValidate(let failures):
            if failures.contains(where: { $0.policyFailureReason.description.hasPrefix(MarkerExtensionPolicy.prefix) }) {
                throw ApplePayError(.missingMarkerExtension, Self.reasons(failures))
            }
            throw ApplePayError(
                .untrustedChain,
                failures.isEmpty
                    ? "the signer '\(leaf.subject)' does not chain to a trusted root"
                    : "the signer '\(leaf.subject)' does not chain to a trusted root: \(Self.reasons(failures))")
        }
    }

    private static func reasons(_ failures: [CertificateValidationResult.PolicyFailure]) -> String {
        Set(failures.map(\.policyFailureReason.description)).sorted().joined(separator: "; ")
    }
}

/// Requires Apple's marker extensions: the leaf's 1.2.840.113635.100.6.29 and the intermediate's
/// 1.2.840.113635.100.6.2.14 (only their presence matters).
struct MarkerExtensionPolicy: VerifierPolicy {
    static let prefix = "Apple Pay marker extension"
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        let certificates = Array(chain)
        guard certificates[0].extensions[oid: SignatureVerifier.leafMarker] != nil else {
            return .failsToMeetPolicy(reason: "\(Self.prefix) 1.2.840.113635.100.6.29 is missing from the leaf '\(certificates[0].subject)'")
        }
        guard certificates.count >= 3, certificates[1].extensions[oid: SignatureVerifier.intermediateMarker] != nil else {
            let name = certificates.count >= 3 ? "'\(certificates[1].subject)'" : "(the leaf is issued by the root directly)"
            return .failsToMeetPolicy(reason: "\(Self.prefix) 1.2.840.113635.100.6.2.14 is missing from the intermediate \(name)")
        }
        return .meetsPolicy
    }
}

/// Signer certificates whose chain validated, with the period in which every certificate of that chain is valid.
final class ValidatedChains: Sendable {
    private static let capacity = 64
    private let entries = Mutex<[Certificate: ClosedRange<Date>]>([:])

    subscript(leaf: Certificate) -> ClosedRange<Date>? {
        get { entries.withLock { $0[leaf] } }
        set {
            entries.withLock { entries in
                if entries.count >= Self.capacity { entries.removeAll() }
                entries[leaf] = newValue
            }
        }
    }
}
