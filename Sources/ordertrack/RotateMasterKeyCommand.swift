import ArgumentParser
import Foundation
import Logging
import OrderPersistence
import OrderTrackServer

/// `ordertrack rotate-master-key`: re-seals every stored secret with a new master key, in one transaction.
struct RotateMasterKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-master-key",
        abstract: "Re-seal every stored private key and password with a new master key (all or nothing).",
        discussion: """
            The current key comes from the usual place (ORDERTRACK_MASTER_KEY, --master-key-file, or the development \
            master.key); the new one from --new-master-key-file or ORDERTRACK_NEW_MASTER_KEY. Afterwards start every \
            instance with the new key: instances still holding the old key are refused at their next start.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "File holding the new master key (base64 of 32 bytes); or set ORDERTRACK_NEW_MASTER_KEY")
    var newMasterKeyFile: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let newKey: MasterKey
        do {
            if let path = newMasterKeyFile {
                guard let data = FileManager.default.contents(atPath: path) else { throw usageError("cannot read --new-master-key-file \(path)") }
                newKey = try MasterKey(base64: String(decoding: data, as: UTF8.self), source: "--new-master-key-file \(path)")
            } else if let text = environment["ORDERTRACK_NEW_MASTER_KEY"] {
                newKey = try MasterKey(base64: text, source: "ORDERTRACK_NEW_MASTER_KEY")
            } else {
                throw usageError("give the new key with --new-master-key-file FILE or ORDERTRACK_NEW_MASTER_KEY (`openssl rand -base64 32`)")
            }
        } catch let error as OrderStoreError {
            throw usageError("\(error)")
        }
        var logger = Logger(label: "ordertrack-admin")
        logger.logLevel = .warning
        let configuration = try database.configuration()
        try await reportingStoreProblems {
            try await OrderTrackApplication.rotateMasterKey(configuration: configuration, to: newKey, logger: logger)
        }
        print("every secret is now sealed with the new master key; restart every instance with it")
    }
}
