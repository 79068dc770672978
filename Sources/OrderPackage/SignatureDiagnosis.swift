import CMSVerification
import Foundation
import OrderSigning
@_spi(DisableValidityCheck) import X509

/// Checks a package's signature as Wallet does and explains each problem with a fix: the CMS signature over
/// manifest.json in any form CMS allows, the signer's order type, its validity at the signing time (and today), the
/// embedded intermediate, and the chain to the trust roots.
struct SignatureDiagnosis {
    var trustRoots: [Certificate]
    /// What completes a chain whose embedded intermediate is the wrong one, as Wallet's own WWDR intermediates do.
    var knownIntermediates: [Certificate]
    /// How far in the future a signing time may be before it is called a clock error.
    static let clockTolerance: TimeInterval = 300

    private let path = PackageLayout.signature

    func run(_ signature: [UInt8], over manifest: [UInt8], now: Date, into report: inout ProblemList, result: inout PackageVerification)
        async
    {
        let signed: CMSSignedData
        do {
            signed = try CMSSignedData(ber: signature)
        } catch {
            report.error(path, "the signature is not a CMS SignedData (\(error)); sign manifest.json as a detached CMS SignedData")
            return
        }
        guard signed.signerInfos.count == 1, let info = signed.signerInfos.first else {
            report.error(path, "the signature has \(signed.signerInfos.count) signers; sign with exactly one Order Type ID certificate")
            return
        }
        guard let certificate = signed.certificate(of: info) else {
            report.error(path, "the signature does not embed its signer certificate; include the Order Type ID certificate")
            return
        }
        result.signerSubject = String(describing: certificate.subject)
        result.signerOrderTypeIdentifier = SigningIdentity.orderTypeIdentifier(of: certificate)
        result.signerNotValidBefore = certificate.notValidBefore
        result.signerNotValidAfter = certificate.notValidAfter
        result.signingTime = info.signedAttributes?.signingTime

        if let content = signed.encapsulatedContent, content != manifest {
            report.error(path, "the signature encapsulates content other than manifest.json; sign manifest.json, detached")
        }
        do {
            _ = try signed.verify(info, over: manifest)
        } catch {
            report.error(path, "the signature does not verify over manifest.json (\(error)); \(Self.fix(for: error.code))")
        }
        if result.signerOrderTypeIdentifier == nil {
            report.error(
                path,
                "the signer certificate '\(certificate.subject)' is not an Order Type ID certificate (its subject names no "
                    + "order type: no UID, no \"Order Type ID:\" common name); sign with the Order Type ID certificate "
                    + "made for this order type in the developer account"
            )
        }
        let signingTime = checkSigningTime(result.signingTime, now: now, into: &report)
        let intermediates = signed.certificates.filter { $0 != certificate }
        for embedded in [certificate] + intermediates {
            checkValidity(of: embedded, isSigner: embedded == certificate, signedAt: signingTime, now: now, into: &report)
        }
        guard let intermediates = checkIssuer(of: certificate, among: intermediates, into: &report) else { return }
        await checkChain(of: certificate, intermediates: intermediates, into: &report, result: &result)
    }

    private static func fix(for code: CMSError.Code) -> String {
        switch code {
        case .digestMismatch: "manifest.json changed after signing, or the signature was made over other content; rebuild and re-sign"
        case .unsupportedAlgorithm: "sign with SHA-256 and the certificate's RSA or ECDSA key"
        case .contentTypeMismatch: "sign manifest.json as plain data (id-data)"
        case .malformed, .signerCertificateMissing, .signatureMismatch:
            "re-sign manifest.json with the Order Type ID certificate's private key"
        }
    }

    /// The instant validity is judged at: the signing time when there is a plausible one, else now.
    private func checkSigningTime(_ signingTime: Date?, now: Date, into report: inout ProblemList) -> Date {
        guard let signingTime else {
            report.warning(
                path,
                "the signature has no signingTime attribute, so certificate validity was judged at today's date; "
                    + "sign with signed attributes (`openssl cms -sign` without -noattr)"
            )
            return now
        }
        if signingTime.timeIntervalSince(now) > Self.clockTolerance {
            report.error(
                path,
                "the signing time \(Self.day(signingTime)) is in the future (now \(Self.day(now))); correct the signing "
                    + "machine's clock and re-sign"
            )
            return now
        }
        return signingTime
    }

    private func checkValidity(of certificate: Certificate, isSigner: Bool, signedAt: Date, now: Date, into report: inout ProblemList) {
        let role = isSigner ? "signer certificate" : "embedded certificate '\(certificate.subject)'"
        let validity = certificate.notValidBefore...certificate.notValidAfter
        let period = "valid from \(Self.day(certificate.notValidBefore)) to \(Self.day(certificate.notValidAfter))"
        guard validity.contains(signedAt) else {
            report.error(
                path,
                "the \(role) was not valid when signed on \(Self.day(signedAt)) (\(period)); re-sign with a certificate "
                    + "valid at signing time"
            )
            return
        }
        if now > certificate.notValidAfter {
            report.warning(
                path,
                "the \(role) was valid when signed on \(Self.day(signedAt)); the certificate expired on "
                    + "\(Self.day(certificate.notValidAfter)); renew it before signing new packages"
            )
        }
    }

    /// The intermediates to build the chain with: the embedded ones when one of them (or a trust root) issued the
    /// signer; else, as Wallet builds chains with the WWDR intermediates it knows, the known issuer, with a warning
    /// about the embedded one. `nil`, with the error explained, when no certificate at hand issued the signer.
    private func checkIssuer(of certificate: Certificate, among intermediates: [Certificate], into report: inout ProblemList) -> [Certificate]? {
        if intermediates.contains(where: { $0.subject == certificate.issuer }) || trustRoots.contains(where: { $0.subject == certificate.issuer }) {
            return intermediates
        }
        let embedded = intermediates.map { "'\($0.subject)'" }.joined(separator: ", ")
        if let known = knownIntermediates.first(where: { $0.subject == certificate.issuer }) {
            report.warning(
                path,
                (intermediates.isEmpty
                    ? "the WWDR intermediate certificate is not embedded in the signature"
                    : "the embedded intermediate \(embedded) is not the signer's issuer")
                    + "; Wallet completes the chain with its own '\(certificate.issuer)', and so did this check; "
                    + "embed that intermediate so that every verifier can"
            )
            return intermediates + [known]
        }
        if intermediates.isEmpty {
            report.error(
                path,
                "the WWDR intermediate certificate is not embedded in the signature; include the intermediate "
                    + "'\(certificate.issuer)' that issued the Order Type ID certificate"
            )
        } else {
            report.error(
                path,
                "the embedded intermediate \(embedded) is not the signer's issuer: the Order Type ID certificate was "
                    + "issued by '\(certificate.issuer)'; embed that intermediate instead"
            )
        }
        return nil
    }

    private func checkChain(
        of certificate: Certificate, intermediates: [Certificate], into report: inout ProblemList, result: inout PackageVerification
    ) async {
        // Dates are judged above, at the signing time; the chain check looks at signatures, names and constraints only.
        let anchors = trustRoots.isEmpty ? intermediates : trustRoots
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) { RFC5280Policy.withValidityCheckDisabled() }
        switch await verifier.validate(leaf: certificate, intermediates: CertificateStore(intermediates)) {
        case .validCertificate(let chain):
            result.anchored = !trustRoots.isEmpty
            if let root = chain.last, !trustRoots.isEmpty, !AppleCertificates.isAppleRoot(root) {
                report.warning(
                    path,
                    "the chain is anchored to '\(root.subject)', which is not an Apple root: Wallet on a device accepts "
                        + "only Order Type ID certificates Apple issued (WWDR); for Wallet, sign with the Order Type ID "
                        + "certificate from the Apple developer account"
                )
            }
            if trustRoots.isEmpty {
                report.warning(
                    path,
                    "the certificate chain was checked up to the embedded intermediate but not anchored: "
                        + "no trust root was given (pass Apple's root certificate to check the full chain)"
                )
            }
        case .couldNotValidate(let failures):
            let reasons = Set(failures.map { String(describing: $0.policyFailureReason) }).sorted()
            let why = reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))"
            if trustRoots == AppleCertificates.roots {
                report.error(
                    path,
                    "the signer certificate does not chain to Apple's roots (Apple Root CA, Apple Root CA - G3)\(why); "
                        + "Wallet accepts only Order Type ID certificates from the Apple developer account "
                        + "(for a development package, pass its root with --root)"
                )
            } else {
                let target = trustRoots.isEmpty ? "the embedded intermediate" : "the given trust root"
                report.error(
                    path,
                    "the signer certificate does not chain to \(target)\(why); "
                        + "embed the WWDR intermediate that issued the Order Type ID certificate, issued in turn by the root"
                )
            }
        }
    }

    /// A calendar day, UTC, as the messages show dates.
    static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day())
    }
}
