import Foundation
import OrderModel
import OrderSigning
import OrderZip
import SwiftASN1
@_spi(CMS) @_spi(DisableValidityCheck) import X509

/// The package "doctor": checks a `.order` file end to end and reports every problem with a fix.
public struct OrderPackageVerifier: Sendable {
    /// Roots the signer must chain to (Apple's root in production). Empty: the chain is checked only up to the
    /// embedded intermediate and the result says it was not anchored.
    public var trustRoots: [Certificate]
    /// Bounds for reading the archive.
    public var limits: ZipReadLimits

    /// A verifier that anchors the chain at `trustRoots`.
    public init(trustRoots: [Certificate] = [], limits: ZipReadLimits = .orderPackage) {
        self.trustRoots = trustRoots
        self.limits = limits
    }

    /// Trust roots from PEM text holding one or more `CERTIFICATE` blocks (e.g. Apple's root, or a test root).
    ///
    /// - Throws: The PEM or certificate parsing error of swift-certificates.
    public init(trustRootsPEM: String, limits: ZipReadLimits = .orderPackage) throws {
        let documents = try PEMDocument.parseMultiple(pemString: trustRootsPEM)
        self.init(trustRoots: try documents.map { try Certificate(pemDocument: $0) }, limits: limits)
    }

    /// Verifies `package` as of `time` (certificate validity is judged at that instant).
    ///
    /// Checks the zip structure and limits, the presence of order.json, manifest.json and signature, every manifest
    /// digest, the CMS signature over the manifest, the signer certificate's order type and validity, the chain,
    /// and order.json with its files against the schema. It never throws: every finding is in the result.
    public func verify(_ package: [UInt8], at time: Date = Date()) async -> PackageVerification {
        var report = ProblemList()
        let inspection = ZipReader.inspect(package, limits: limits)
        for problem in inspection.problems {
            report.error(problem.entry ?? "", "\(problem); rebuild the package with `ordertrack package`")
        }
        var files: [String: [UInt8]] = [:]
        for file in inspection.files {
            if file.isDirectory {
                report.warning(file.name, "directory entries are unnecessary in an order package; zip files only")
            } else {
                files[file.name] = file.data
            }
        }
        var result = PackageVerification(
            problems: [], files: inspection.files.filter { !$0.isDirectory }.map(\.name), anchored: false
        )

        let order = files[PackageLayout.orderJSON]
        let manifest = files[PackageLayout.manifest]
        let signature = files[PackageLayout.signature]
        if order == nil {
            report.error(PackageLayout.orderJSON, "order.json is missing; put it at the top level of the package")
        }
        if manifest == nil {
            report.error(PackageLayout.manifest, "manifest.json is missing; list the SHA-256 of every file in it")
        }
        if signature == nil {
            report.error(
                PackageLayout.signature,
                "signature is missing; sign manifest.json (detached CMS, DER) with the Order Type ID certificate"
            )
        }
        var schemaProblems: [ValidationProblem] = []
        if let order {
            var contents = files
            contents[PackageLayout.manifest] = nil
            contents[PackageLayout.signature] = nil
            let (document, schema) = OrderValidator.parseAndValidate(orderJSON: order, package: PackageContents(files: contents))
            result.orderTypeIdentifier = document?["orderTypeIdentifier"]?.stringValue
            schemaProblems = schema.problems
        }
        if let manifest { ManifestCheck.run(manifest: manifest, files: files, into: &report) }
        if let manifest, let signature {
            await checkSignature(signature, over: manifest, at: time, into: &report, result: &result)
        }
        if let signerType = result.signerOrderTypeIdentifier, let orderType = result.orderTypeIdentifier,
            signerType != orderType
        {
            report.error(
                PackageLayout.signature,
                "the signer certificate is for order type '\(signerType)' but order.json has orderTypeIdentifier "
                    + "'\(orderType)'; sign with the certificate of '\(orderType)' or fix order.json"
            )
        }
        report.problems.append(contentsOf: schemaProblems)
        result.problems = report.problems
        return result
    }

    // MARK: - Signature

    private func checkSignature(
        _ signature: [UInt8], over manifest: [UInt8], at time: Date, into report: inout ProblemList,
        result: inout PackageVerification
    ) async {
        let path = PackageLayout.signature
        let parsed: CMSSignature
        let signer: CMSSignature.Signer
        do {
            parsed = try CMSSignature(derEncoded: signature)
            let signers = try parsed.signers
            guard signers.count == 1, let only = signers.first else {
                report.error(
                    path,
                    signers.isEmpty
                        ? "the signature does not embed its signer certificate; include the Order Type ID certificate"
                        : "the signature has \(signers.count) signers; sign with exactly one Order Type ID certificate"
                )
                return
            }
            signer = only
        } catch {
            report.error(path, "signature is not a DER CMS SignedData (\(error)); sign manifest.json with CMS, DER output")
            return
        }
        let certificate = signer.certificate
        result.signerSubject = String(describing: certificate.subject)
        result.signerOrderTypeIdentifier = SigningIdentity.orderTypeIdentifier(of: certificate)
        result.signerNotValidBefore = certificate.notValidBefore
        result.signerNotValidAfter = certificate.notValidAfter
        result.signingTime = signer.signingTime
        if SigningIdentity.orderTypeIdentifier(of: certificate) == nil {
            report.error(
                path,
                "the signer certificate names no order type (UID or \"Order Type ID:\" common name) in its subject; sign with an Order Type ID certificate"
            )
        }
        if signer.signingTime == nil {
            report.warning(path, "the signature has no signingTime attribute; sign with signed attributes")
        }

        let intermediates = parsed.certificates.filter { $0 != certificate }
        if intermediates.isEmpty {
            report.error(
                path,
                "the WWDR intermediate certificate is not embedded in the signature; include the intermediate "
                    + "that issued the Order Type ID certificate"
            )
        }
        for embedded in [certificate] + intermediates {
            checkValidity(of: embedded, isSigner: embedded == certificate, at: time, into: &report)
        }

        // Dates are reported above; the chain check looks at signatures, names and constraints only.
        let anchors = trustRoots.isEmpty ? (intermediates.isEmpty ? [certificate] : intermediates) : trustRoots
        let outcome = await CMS.isValidSignature(
            dataBytes: manifest, signatureBytes: signature, trustRoots: CertificateStore(anchors)
        ) {
            RFC5280Policy.withValidityCheckDisabled()
        }
        switch outcome {
        case .success:
            result.anchored = !trustRoots.isEmpty
            if trustRoots.isEmpty {
                report.warning(
                    path,
                    "the certificate chain was checked up to the embedded intermediate but not anchored: "
                        + "no trust root was given (pass Apple's root certificate to check the full chain)"
                )
            }
        case .failure(.invalidCMSBlock(let block)):
            let hint =
                block.reason.contains("digest mismatch")
                ? "manifest.json changed after signing, or the signature was made over other content; rebuild and re-sign"
                : "re-sign manifest.json with the Order Type ID certificate's private key"
            report.error(path, "the signature does not verify over manifest.json (\(block.reason)); \(hint)")
        case .failure(.unableToValidateSigner(let failure)):
            let reasons = failure.policyFailures.map { String(describing: $0.policyFailureReason) }
            let target = trustRoots.isEmpty ? "the embedded intermediate" : "the given trust root"
            report.error(
                path,
                "the signer certificate does not chain to \(target) (\(reasons.joined(separator: "; "))); "
                    + "embed the WWDR intermediate that issued the Order Type ID certificate"
            )
        }
    }

    private func checkValidity(of certificate: Certificate, isSigner: Bool, at time: Date, into report: inout ProblemList) {
        let role = isSigner ? "signer certificate" : "embedded certificate '\(certificate.subject)'"
        if time < certificate.notValidBefore {
            report.error(
                PackageLayout.signature,
                "the \(role) is not valid before \(certificate.notValidBefore.formatted(.iso8601)); check the clock or wait"
            )
        } else if time > certificate.notValidAfter {
            report.error(
                PackageLayout.signature,
                "the \(role) expired on \(certificate.notValidAfter.formatted(.iso8601)); renew it in the developer account"
            )
        }
    }
}

/// Problems in the order found.
struct ProblemList {
    var problems: [ValidationProblem] = []

    mutating func error(_ path: String, _ message: String) {
        problems.append(ValidationProblem(path: path, message: message, severity: .error))
    }

    mutating func warning(_ path: String, _ message: String) {
        problems.append(ValidationProblem(path: path, message: message, severity: .warning))
    }
}
