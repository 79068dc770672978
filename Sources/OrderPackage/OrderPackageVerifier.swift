import Foundation
import OrderModel
import OrderSigning
import OrderZip
import SwiftASN1
import X509

/// The package "doctor": checks a `.order` file end to end and reports every problem with a fix.
public struct OrderPackageVerifier: Sendable {
    /// Roots the signer must chain to (Apple's root in production). Empty: the chain is checked only up to the
    /// embedded intermediate and the result says it was not anchored.
    public var trustRoots: [Certificate]
    /// Intermediates the verifier completes a chain with when the package embeds the wrong one, as Wallet does with
    /// the WWDR intermediates it knows (G3–G6 by default). The wrong embedded one is then a warning, not a failure.
    public var knownIntermediates: [Certificate]
    /// Bounds for reading the archive.
    public var limits: ZipReadLimits
    /// How order.json is validated (`allowInsecureWebServiceURL` for a development server's packages).
    public var validationOptions: ValidationOptions

    /// A verifier that anchors the chain at `trustRoots`.
    public init(
        trustRoots: [Certificate] = [], knownIntermediates: [Certificate] = AppleCertificates.intermediates, limits: ZipReadLimits = .orderPackage,
        validationOptions: ValidationOptions = ValidationOptions()
    ) {
        self.trustRoots = trustRoots
        self.knownIntermediates = knownIntermediates
        self.limits = limits
        self.validationOptions = validationOptions
    }

    /// Trust roots from PEM text holding one or more `CERTIFICATE` blocks (e.g. Apple's root, or a test root).
    ///
    /// - Throws: The PEM or certificate parsing error of swift-certificates.
    public init(trustRootsPEM: String, limits: ZipReadLimits = .orderPackage, validationOptions: ValidationOptions = ValidationOptions()) throws {
        let documents = try PEMDocument.parseMultiple(pemString: trustRootsPEM)
        self.init(trustRoots: try documents.map { try Certificate(pemDocument: $0) }, limits: limits, validationOptions: validationOptions)
    }

    /// Verifies `package` as of `time` (now): certificate validity is judged at the signature's signingTime, and a
    /// certificate that expired since is a warning.
    ///
    /// Checks the zip structure and limits, the presence of order.json, manifest.json and signature, every manifest
    /// digest, the CMS signature over the manifest (BER or DER, any SignedData version and signer identifier, with or
    /// without signed attributes), the signer certificate's order type and validity, the embedded intermediate, the
    /// chain, and order.json with its files against the schema. It never throws: every finding is in the result.
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
                "signature is missing; sign manifest.json (detached CMS) with the Order Type ID certificate"
            )
        }
        var schemaProblems: [ValidationProblem] = []
        if let order {
            var contents = files
            contents[PackageLayout.manifest] = nil
            contents[PackageLayout.signature] = nil
            let (document, schema) = OrderValidator.parseAndValidate(
                orderJSON: order, package: PackageContents(files: contents), options: validationOptions
            )
            result.orderTypeIdentifier = document?["orderTypeIdentifier"]?.stringValue
            schemaProblems = schema.problems
        }
        if let manifest { ManifestCheck.run(manifest: manifest, files: files, into: &report) }
        if let manifest, let signature {
            await SignatureDiagnosis(trustRoots: trustRoots, knownIntermediates: knownIntermediates).run(
                signature, over: manifest, now: time, into: &report, result: &result)
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
