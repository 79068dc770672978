import BoundedCache
import CMSVerification
import Crypto
import Foundation
import SwiftASN1
import Synchronization
@_spi(FixedExpiryValidationTime) import X509

/// The object identifiers Apple Pay's certificates carry.
public enum ApplePayOID {
    /// The marker extension of the leaf that signs payment tokens.
    public static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 29]
    /// The marker extension of the intermediate (Apple Application Integration CA - G3) that issues that leaf.
    public static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 14]
    /// The payment-processing certificate's extension holding the merchant identifier's SHA-256 as hex text.
    public static let merchantIdentifierHash: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 32]
    /// The subject's userID attribute, which holds the merchant identifier in Apple's certificates.
    public static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19200300, 100, 1, 1]
}

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
    let trustRoots: CertificateStore
    let signingTimeTolerance: TimeInterval
    private let validatedChains = VerifierMemory<DERBytes, ClosedRange<Date>>()
    /// Parsed certificates by DER: every token carries Apple's leaf and intermediate again, and parsing them costs
    /// about as much as the signature check.
    private let parsedCertificates = VerifierMemory<DERBytes, Certificate>()

    init(trustRoots: [Certificate], signingTimeTolerance: TimeInterval) {
        self.trustRoots = CertificateStore(trustRoots)
        self.signingTimeTolerance = signingTimeTolerance
    }

    func verify(_ paymentData: ApplePayPaymentData, now: Date) async throws(ApplePayError) -> ApplePaySignature {
        let signed: CMSSignedData
        do {
            signed = try CMSSignedData(ber: paymentData.signature) { der in
                let key = DERBytes(der)
                if let known = parsedCertificates[key] { return known }
                let parsed = try Certificate(derEncoded: key.bytes)
                parsedCertificates[key] = parsed
                return parsed
            }
        } catch {
            throw ApplePayError(.invalidSignature, "the signature is not readable: \(error.reason)")
        }
        guard signed.signerInfos.count == 1, let info = signed.signerInfos.first else {
            throw ApplePayError(.invalidSignature, "the signature has \(signed.signerInfos.count) signers; Apple uses one")
        }
        guard let attributes = info.signedAttributes else {
            throw ApplePayError(.invalidSignature, "the signer info has no signed attributes")
        }
        guard let signerIndex = signed.certificates.firstIndex(where: info.names) else {
            throw ApplePayError(.invalidSignature, "the signature does not carry the certificate of its signer")
        }
        let signer = signed.certificates[signerIndex]
        try await validateChain(of: signer, der: signed.certificateDER[signerIndex], intermediates: signed.certificates, now: now)
        do {
            _ = try signed.verify(info, over: paymentData.signedBytes)
        } catch {
            throw ApplePayError(.invalidSignature, error.code == .digestMismatch ? "\(error.reason) (the token's data was altered)" : error.reason)
        }
        guard let signingTime = attributes.signingTime else {
            throw ApplePayError(.signingTimeOutOfRange, "the signature has no signingTime attribute")
        }
        let skew = now.timeIntervalSince(signingTime)
        guard abs(skew) <= signingTimeTolerance else {
            throw ApplePayError(
                .signingTimeOutOfRange,
                "the token was signed at \(signingTime.formatted(.iso8601)), \(Int(skew.rounded())) s from now "
                    + "(\(now.formatted(.iso8601))); at most \(Int(signingTimeTolerance)) s are accepted")
        }
        return ApplePaySignature(signer: signer, signingTime: signingTime)
    }

    private func validateChain(of leaf: Certificate, der: [UInt8], intermediates: [Certificate], now: Date) async throws(ApplePayError) {
        let key = DERBytes(der[...])
        if let validity = validatedChains[key], validity.contains(now) { return }
        var verifier = Verifier(rootCertificates: trustRoots) {
            MarkerExtensionPolicy()
            RFC5280Policy(fixedExpiryValidationTime: now)
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates)) {
        case .validCertificate(let chain):
            let from = chain.map(\.notValidBefore).max() ?? now
            let until = chain.map(\.notValidAfter).min() ?? now
            validatedChains[key] = from...max(from, until)
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
        guard certificates[0].extensions[oid: ApplePayOID.leafMarker] != nil else {
            return .failsToMeetPolicy(reason: "\(Self.prefix) 1.2.840.113635.100.6.29 is missing from the leaf '\(certificates[0].subject)'")
        }
        guard certificates.count >= 3, certificates[1].extensions[oid: ApplePayOID.intermediateMarker] != nil else {
            let name = certificates.count >= 3 ? "'\(certificates[1].subject)'" : "(the leaf is issued by the root directly)"
            return .failsToMeetPolicy(reason: "\(Self.prefix) 1.2.840.113635.100.6.2.14 is missing from the intermediate \(name)")
        }
        return .meetsPolicy
    }
}

/// A certificate's DER as a map key, hashed as one block of bytes: hashing `[UInt8]` through the generic map would hash
/// byte by byte, which cost as much as the signature check (measured with `ordertrack bench apple-pay` under perf).
struct DERBytes: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = Array(bytes) }

    static func == (left: DERBytes, right: DERBytes) -> Bool {
        left.bytes.withUnsafeBytes { a in
            right.bytes.withUnsafeBytes { b in
                guard a.count == b.count, let first = a.baseAddress, let second = b.baseAddress else { return a.count == b.count }
                return memcmp(first, second, a.count) == 0
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// A verifier's memory (validated chains, parsed certificates), least recently used out: Apple signs with a handful of
/// certificates, so a few dozen entries hold them all.
final class VerifierMemory<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex(LRUCache<Key, Value>(capacity: 64))

    subscript(key: Key) -> Value? {
        get { entries.withLock { $0.value(forKey: key) } }
        set {
            guard let newValue else { return }
            _ = entries.withLock { $0.setValue(newValue, forKey: key, cost: 1) }
        }
    }
}
