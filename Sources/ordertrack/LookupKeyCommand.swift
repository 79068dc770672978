import ArgumentParser
import Foundation
import OrderPersistence
import OrderSigning
import OrderTrackServer

/// `ordertrack lookup-key`: order-lookup keys, as App Store Connect hands out API keys.
struct LookupKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup-key", abstract: "Order-lookup keys (GET /inApps/v1/lookup/{orderId}, App Store Server API tokens).",
        subcommands: [CreateLookupKeyCommand.self])
}

struct CreateLookupKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a lookup key for a merchant; prints keyId, issuerId, bundleId and the private .p8 key (shown once) as JSON.")

    @Option(help: "Merchant id") var merchant: String
    @Option(help: "Bundle id the key's tokens carry as bid (e.g. com.example.support)") var bundleId: String = "com.example.support"
    @Option(help: "Issuer id (a UUID) the key's tokens carry as iss; a new one by default") var issuerId: String?
    @Option(help: "Also write the private key to this new file (mode 0600), as App Store Connect's AuthKey_<keyId>.p8")
    var p8: String?
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let created = try await database.withStore { store in
            do {
                return try await LookupKeyService(store: store).create(merchantID: merchant, bundleID: bundleId, issuerID: issuerId)
            } catch let error as OrderTrackError {
                reportProblems([error.reason])
                throw ExitCode(1)
            } catch OrderStoreError.merchantNotFound(let id) {
                reportProblems(["no merchant \(id)"])
                throw ExitCode(1)
            }
        }
        if let p8 { try SecureFile.create(created.privateKeyPEM, to: URL(fileURLWithPath: p8), mode: 0o600) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let output: [String: String] = [
            "keyId": created.record.keyID, "issuerId": created.record.issuerID, "bundleId": created.record.bundleID,
            "privateKey": created.privateKeyPEM,
        ]
        print(String(decoding: try encoder.encode(output), as: UTF8.self))
    }
}
