import Foundation
import Logging
import OrderPersistence
import OrderSigning

/// Where the master key that seals the store's secrets comes from.
public enum MasterKeySource: Sendable, Equatable {
    /// The base64 text itself, from `ORDERTRACK_MASTER_KEY`.
    case environment(String)
    /// A file holding the base64 text, from `--master-key-file` (kept outside the data directory and its backups).
    case file(path: String)
}

/// Resolves the configured master key, or in development mode the generated `master.key` of the data directory.
enum MasterKeyResolver {
    static let developmentFileName = "master.key"

    /// The master key of `configuration`.
    ///
    /// - Throws: ``ConfigurationError`` naming the source when the key is missing, unreadable or malformed.
    static func resolve(_ configuration: ServerConfiguration, logger: Logger) throws(ConfigurationError) -> MasterKey {
        switch configuration.masterKey {
        case .environment(let text):
            return try parse(text, source: "ORDERTRACK_MASTER_KEY")
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(setting: "master-key-file", message: "cannot read \(path)")
            }
            return try parse(String(decoding: data, as: UTF8.self), source: "master key file \(path)")
        case nil:
            guard configuration.isDevelopment else {
                throw ConfigurationError(
                    setting: "master-key",
                    message:
                        "no master key: set ORDERTRACK_MASTER_KEY to base64 of 32 random bytes (`openssl rand -base64 32`) or pass --master-key-file; "
                        + "only development mode (--dev, the SQLite default) generates one in the data directory")
            }
            return try developmentKey(in: configuration.dataDirectory, logger: logger)
        }
    }

    static func parse(_ text: String, source: String) throws(ConfigurationError) -> MasterKey {
        do {
            return try MasterKey(base64: text, source: source)
        } catch {
            throw ConfigurationError(setting: "master-key", message: "\(error)")
        }
    }

    /// The data directory's `master.key`, generated on first use. A new key is written to a private temporary file
    /// created with mode 0600 and then linked into place, so a concurrently starting instance reads either no file or
    /// the whole key, and the file is never readable by others, not even briefly.
    static func developmentKey(in directory: URL, logger: Logger) throws(ConfigurationError) -> MasterKey {
        let file = directory.appendingPathComponent(developmentFileName)
        if let data = FileManager.default.contents(atPath: file.path) {
            return try parse(String(decoding: data, as: UTF8.self), source: "master key file \(file.path)")
        }
        let key = MasterKey.generate()
        let temporary = directory.appendingPathComponent(".\(developmentFileName).\(UUID().uuidString)")
        do {
            try SecureFile.create(key.base64 + "\n", to: temporary, mode: 0o600)
        } catch {
            throw ConfigurationError(setting: "master-key", message: "cannot create \(file.path): \(error)")
        }
        defer { unlink(temporary.path) }
        guard link(temporary.path, file.path) == 0 else {
            let reason = errno
            // Another instance won the race: use its key.
            if reason == EEXIST, let data = FileManager.default.contents(atPath: file.path) {
                return try parse(String(decoding: data, as: UTF8.self), source: "master key file \(file.path)")
            }
            throw ConfigurationError(setting: "master-key", message: "cannot create \(file.path): \(String(cString: strerror(reason)))")
        }
        logger.notice(
            "development mode: generated a master key next to the database; production keeps it elsewhere (ORDERTRACK_MASTER_KEY)",
            metadata: ["file": .string(file.path)])
        return key
    }
}
