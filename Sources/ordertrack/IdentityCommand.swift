import ArgumentParser
import Foundation
import OrderSigning

struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity", abstract: "Signing identities.", subcommands: [CreateDevelopmentIdentityCommand.self])
}

struct CreateDevelopmentIdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-dev",
        abstract: "Create a development root CA, a stand-in WWDR intermediate and an Order Type ID certificate and key. Wallet does NOT trust them.")

    @Option(help: "Order type identifier the certificate is for, e.g. order.com.example.shop")
    var orderTypeIdentifier: String

    @Option(help: "Team identifier to put in the certificate")
    var team = "DEVTEAM000"

    @Option(help: "Directory to write root-ca.pem, wwdr.pem, certificate.pem and key.pem into")
    var out: String

    func validate() throws {
        guard orderTypeIdentifier.hasPrefix("order."), orderTypeIdentifier.count > 6 else {
            throw ValidationError(
                "--order-type-identifier must look like order.com.example.shop (Apple's order type identifiers start with \"order.\")")
        }
    }

    func run() throws {
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        let created: DevelopmentIdentity.Created
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            created = try DevelopmentIdentity.create(orderTypeIdentifier: orderTypeIdentifier, teamIdentifier: team, in: directory)
        } catch {
            reportProblems(["\(error)"])
            throw ExitCode(1)
        }
        print(
            """
            wrote a development identity for \(orderTypeIdentifier) to \(created.files.directory.path)
              root CA:      \(created.files.rootCA.path)
              intermediate: \(created.files.wwdr.path)
              certificate:  \(created.files.certificate.path)
              key:          \(created.files.privateKey.path)
            Wallet does not trust these: use them for development and tests only.
            """)
    }
}
