import Foundation
import Logging
import OrderPersistence
import OrderTrackServer
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Audit findings H3, M8, L6, L7: private data directory and files, the master key's sources and refusals, the demo
/// merchant only in development mode.
@Suite(.serialized) struct SecurityConfigurationTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-security-\(UUID().uuidString)", isDirectory: true)
    }

    static func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) & 0o777
    }

    static let logger = Logger(label: "security-test")

    @Test func h3_l7_theDataDirectoryIs0700AndItsSecretFiles0600UnderUmask022() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let previous = umask(0o022)
        defer { umask(previous) }
        let configuration = try ServerConfiguration(port: 0, dataDirectory: directory.path)
        #expect(configuration.isDevelopment, "SQLite is development mode unless --no-dev")
        let server = try await OrderTrackApplication.build(configuration: configuration, logger: Self.logger)
        // While the database is open: its -wal and -shm files go away when the last connection closes.
        let modes = try ["ordertrack.sqlite", "ordertrack.sqlite-wal", "ordertrack.sqlite-shm", "master.key", "dev-credentials.json"].map {
            ($0, try Self.mode(directory.appendingPathComponent($0)))
        }
        try await server.store.shutdown()
        #expect(server.developmentCredentials != nil)
        #expect(try Self.mode(directory) == 0o700)
        for (name, mode) in modes {
            #expect(mode == 0o600, "\(name)")
        }

        // A data directory an older version created 0755 is narrowed.
        chmod(directory.path, 0o755)
        let reopened = try await OrderTrackApplication.openStore(configuration: configuration, logger: Self.logger)
        try await reopened.shutdown()
        #expect(try Self.mode(directory) == 0o700)
    }

    @Test func h3_withoutAMasterKeyProductionRefusesToStartAndSaysWhatToSet() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try ServerConfiguration(port: 0, dataDirectory: directory.path)
        configuration.developmentMode = false
        await #expect {
            try await OrderTrackApplication.build(configuration: configuration, logger: Self.logger)
        } throws: { error in
            "\(error)".contains("no master key") && "\(error)".contains("ORDERTRACK_MASTER_KEY") && "\(error)".contains("--master-key-file")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("master.key").path), "no silent fallback key")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("ordertrack.sqlite").path))
    }

    @Test func h3_aMalformedOrWrongMasterKeyIsAClearStartupError() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = MasterKey.generate()
        var configuration = try ServerConfiguration(port: 0, dataDirectory: directory.path)
        configuration.masterKey = .environment(key.base64)
        try await OrderTrackApplication.openStore(configuration: configuration, logger: Self.logger).shutdown()

        configuration.masterKey = .environment("c2hvcnQ=")
        await #expect {
            try await OrderTrackApplication.openStore(configuration: configuration, logger: Self.logger)
        } throws: { error in
            "\(error)".contains("ORDERTRACK_MASTER_KEY") && "\(error)".contains("5 bytes, not 32")
        }
        configuration.masterKey = .environment(MasterKey.generate().base64)
        await #expect(throws: OrderStoreError.wrongMasterKey) {
            try await OrderTrackApplication.openStore(configuration: configuration, logger: Self.logger)
        }
        let keyFile = directory.appendingPathComponent("elsewhere.key")
        try (key.base64 + "\n").write(to: keyFile, atomically: true, encoding: .utf8)
        configuration.masterKey = .file(path: keyFile.path)
        try await OrderTrackApplication.openStore(configuration: configuration, logger: Self.logger).shutdown()
        configuration.masterKey = .file(path: directory.appendingPathComponent("missing.key").path)
        await #expect {
            try await OrderTrackApplication.openStore(configuration: configuration, logger: Self.logger)
        } throws: { error in
            "\(error)".contains("cannot read") && "\(error)".contains("missing.key")
        }
    }

    @Test func h3_rotateMasterKeyMovesTheDatabaseToTheNewKey() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try ServerConfiguration(port: 0, dataDirectory: directory.path, databaseURL: try TestDatabase.storeURL())
        var development = configuration
        development.developmentMode = true
        let server = try await OrderTrackApplication.build(configuration: development, logger: Self.logger)
        try await server.store.shutdown()
        let newKey = MasterKey.generate()
        try await OrderTrackApplication.rotateMasterKey(configuration: development, to: newKey, logger: Self.logger)

        await #expect(throws: OrderStoreError.wrongMasterKey) {
            try await OrderTrackApplication.openStore(configuration: development, logger: Self.logger)
        }
        var rotated = configuration
        rotated.masterKey = .environment(newKey.base64)
        let store = try await OrderTrackApplication.openStore(configuration: rotated, logger: Self.logger)
        let types = try await store.orderTypes(merchantID: try #require(server.developmentCredentials?.merchantID))
        try await store.shutdown()
        #expect(types.map(\.orderTypeIdentifier) == ["order.dev.ordertrack.demo"])
    }

    @Test func m8_noDevCreatesNoDemoMerchantOnSQLite() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try ServerConfiguration(port: 0, dataDirectory: directory.path)
        configuration.developmentMode = false
        configuration.masterKey = .environment(MasterKey.generate().base64)
        let server = try await OrderTrackApplication.build(configuration: configuration, logger: Self.logger)
        let merchants = try await server.store.merchants()
        try await server.store.shutdown()
        #expect(server.developmentCredentials == nil)
        #expect(merchants.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("dev-credentials.json").path))
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func m8_postgresIsNotDevelopmentModeUnlessAsked() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try ServerConfiguration(port: 0, dataDirectory: directory.path, databaseURL: try TestDatabase.freshPostgresURL())
        #expect(!configuration.isDevelopment)
        configuration.masterKey = .environment(MasterKey.generate().base64)
        let server = try await OrderTrackApplication.build(configuration: configuration, logger: Self.logger)
        let merchants = try await server.store.merchants()
        try await server.store.shutdown()
        #expect(server.developmentCredentials == nil)
        #expect(merchants.isEmpty, "an empty production database gets no demo merchant")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("dev-credentials.json").path))

        configuration.developmentMode = true
        let development = try await OrderTrackApplication.build(configuration: configuration, logger: Self.logger)
        try await development.store.shutdown()
        #expect(development.developmentCredentials != nil, "--dev asks for it")
    }

    @Test func m8_theDemoKeyNeverReachesTheLog() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = RecordingLogHandler.Entries()
        let logger = Logger(label: "security-test", factory: { _ in RecordingLogHandler(entries: log, logLevel: .trace) })
        let server = try await OrderTrackApplication.build(
            configuration: try ServerConfiguration(port: 0, dataDirectory: directory.path), logger: logger)
        try await server.store.shutdown()
        let apiKey = try #require(server.developmentCredentials?.apiKey)
        let lines = log.messages(atLeast: .trace)
        #expect(lines.contains { $0.contains("dev-credentials.json") }, "the bootstrap logs where the credentials are")
        #expect(!lines.contains { $0.contains(apiKey) })
    }

    @Test func l6_aMistypedDatabaseURLDoesNotEchoItsPassword() {
        #expect {
            try ServerConfiguration(databaseURL: "postgress://admin:hunter2@db/x")
        } throws: { error in
            "\(error)".contains("postgress://admin:***@db/x") && !"\(error)".contains("hunter2")
        }
    }
}
