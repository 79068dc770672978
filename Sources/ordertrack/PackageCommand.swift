import ArgumentParser
import Foundation
import OrderModel
import OrderPackage
import OrderSigning

struct PackageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package", abstract: "Build or verify signed .order packages.",
        subcommands: [BuildPackageCommand.self, VerifyPackageCommand.self])
}

struct BuildPackageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build", abstract: "Validate, sign and zip a package source directory into a .order file.")

    @Argument(help: "Source directory: order.json, images, *.lproj/ folders")
    var source: String

    @OptionGroup var signing: SigningOptions

    @Option(name: .shortAndLong, help: "Output .order file")
    var output: String

    @Flag(help: "Accept an http:// webServiceURL with a warning (local development)")
    var allowHTTP = false

    func run() async throws {
        let identity = try signing.load()
        if identity.expiresWithin(30 * 86_400) {
            reportProblems(["warning: the signing certificate expires on \(DateTimeFormat.formatRFC3339(identity.notValidAfter)); renew it"])
        }
        let builder = OrderPackageBuilder(signer: identity, validationOptions: ValidationOptions(allowInsecureWebServiceURL: allowHTTP))
        do {
            let built = try builder.build(sourceDirectory: URL(fileURLWithPath: source))
            try built.write(to: URL(fileURLWithPath: output))
            reportProblems(built.warnings.map(\.description))
            print("wrote \(output) (\(built.bytes.count) bytes, order type \(built.orderTypeIdentifier))")
        } catch {
            switch error {
            case .invalidOrder(let report):
                reportProblems(report.problems.map(\.description))
                throw ExitCode(1)
            case .missingOrderJSON, .unreadableSource:
                throw usageError("\(error)")
            default:
                reportProblems(["\(error)"])
                throw ExitCode(1)
            }
        }
    }
}

struct VerifyPackageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a .order package the way Wallet would, and explain every problem: zip safety, manifest, signature, chain, schema.")

    @Argument(help: "The .order file")
    var file: String

    @Option(help: "Root certificate (PEM) to anchor the signer's chain instead of Apple's roots, e.g. a development root-ca.pem")
    var root: String?

    @Flag(help: "Accept an http:// webServiceURL with a warning (a development server's package)")
    var allowHTTP = false

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw usageError("cannot read \(file)") }
        let options = ValidationOptions(allowInsecureWebServiceURL: allowHTTP)
        let verifier: OrderPackageVerifier
        if let root {
            guard let pem = FileManager.default.contents(atPath: root) else { throw usageError("cannot read \(root)") }
            do {
                verifier = try OrderPackageVerifier(trustRootsPEM: String(decoding: pem, as: UTF8.self), validationOptions: options)
            } catch {
                throw usageError("\(root) holds no usable PEM certificate: \(error)")
            }
        } else {
            verifier = OrderPackageVerifier(trustRoots: AppleCertificates.roots, validationOptions: options)
        }
        let result = await verifier.verify(Array(data))
        reportProblems(result.problems.map(\.description))
        if let subject = result.signerSubject { print("signer: \(subject)") }
        if let type = result.orderTypeIdentifier { print("order type: \(type)") }
        if result.anchored {
            print(root == nil ? "chain: anchored to Apple's root" : "chain: anchored to the given root")
        } else {
            print("chain: NOT anchored (\(root.map { "not to \($0)" } ?? "not to Apple's roots; for a development package pass --root ROOT.pem"))")
        }
        guard result.isValid else {
            print("invalid: \(result.errors.count) problem\(result.errors.count == 1 ? "" : "s")")
            throw ExitCode(1)
        }
        print("valid (\(result.warnings.count) warning\(result.warnings.count == 1 ? "" : "s"))")
    }
}
