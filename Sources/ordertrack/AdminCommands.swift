import ArgumentParser
import Foundation
import Logging
import OrderModel
import OrderPersistence
import OrderTrackServer

/// Which database an administrative command works on; the same defaults as `serve`.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "Data directory (default ./ordertrack-data, or ORDERTRACK_DATA_DIR)")
    var dataDir: String?

    @Option(help: "Database URL (default sqlite://<data-dir>/ordertrack.sqlite, or ORDERTRACK_DATABASE)")
    var database: String?

    @Option(help: "File holding the master key (or ORDERTRACK_MASTER_KEY_FILE; or the key itself in ORDERTRACK_MASTER_KEY)")
    var masterKeyFile: String?

    @Flag(inversion: .prefixedNo, help: "Development mode, as serve's --dev (default: on for SQLite, off for PostgreSQL)")
    var dev: Bool?

    /// The configuration the options and environment describe.
    func configuration() throws -> ServerConfiguration {
        let environment = ProcessInfo.processInfo.environment
        do {
            var configuration = try ServerConfiguration(
                dataDirectory: dataDir ?? environment["ORDERTRACK_DATA_DIR"] ?? "./ordertrack-data",
                databaseURL: database ?? environment["ORDERTRACK_DATABASE"])
            configuration.developmentMode = try dev ?? boolean(environment["ORDERTRACK_DEV"], "ORDERTRACK_DEV")
            configuration.masterKey = masterKeySource(file: masterKeyFile, environment: environment)
            return configuration
        } catch let error as ConfigurationError {
            throw usageError("\(error)")
        }
    }

    /// Opens (and migrates) the configured database, runs `body` with the store and closes it afterwards.
    func withStore<Value>(_ body: (any OrderStore) async throws -> Value) async throws -> Value {
        let configuration = try configuration()
        var logger = Logger(label: "ordertrack-admin")
        logger.logLevel = .warning
        let store = try await reportingStoreProblems {
            try await OrderTrackApplication.openStore(configuration: configuration, logger: logger)
        }
        do {
            let value = try await body(store)
            try await store.shutdown()
            return value
        } catch {
            try? await store.shutdown()
            throw error
        }
    }

    /// Runs `body` with the administration of the open store; its errors are reported as problems (exit 1).
    func withAdministration<Value>(_ body: (Administration) async throws -> Value) async throws -> Value {
        let trust: OrderTypeTrust = try configuration().isDevelopment ? .development : .apple
        return try await withStore { store in
            do {
                return try await body(Administration(store: store, trust: trust))
            } catch let error as OrderTrackError {
                reportProblems([error.reason])
                throw ExitCode(1)
            }
        }
    }
}

/// `ordertrack migrate`: brings the database to this build's schema, e.g. before rolling out new instances.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract:
            "Apply pending database migrations and print the schema version (serve also migrates on start). Refuses a database from a newer ordertrack."
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let version = try await database.withStore { try await $0.databaseSchemaVersion() }
        print("database schema is at version \(version), the latest this ordertrack knows (\(SQLOrderStore.schemaVersion))")
    }
}

struct MerchantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merchant", abstract: "Manage merchants (tenants) and their API keys.",
        subcommands: [
            CreateMerchantCommand.self, CreateAPIKeyCommand.self, RevokeAPIKeyCommand.self, ListAPIKeysCommand.self, ListMerchantsCommand.self,
            OrderDefaultsCommand.self, DeleteMerchantCommand.self,
        ])
}

struct CreateMerchantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a merchant and print its first secret API key (shown once).")

    @Option(help: "Display name of the merchant") var name: String
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let (merchant, apiKey) = try await database.withAdministration { try await $0.createMerchant(name: name) }
        print("merchant: \(merchant.id)\napi key:  \(apiKey)")
    }
}

struct CreateAPIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-key",
        abstract: "Create an API key for a merchant (shown once): a secret key, or with --scope a restricted one.",
        discussion: """
            Without --scope the key is a secret key (sk_…) with every scope. With --scope (repeat it) the key is restricted \
            (rk_…) to those scopes, for instance a logistics partner's: --scope orders:read --scope fulfillments:write. \
            Prints the secret alone on standard output (for scripts) and the key's id and scopes on standard error.
            """)

    @Option(help: "Merchant id") var merchant: String
    @Option(help: "A scope the key may use (repeatable): orders:read, orders:write, fulfillments:write, orders:notify, …")
    var scope: [String] = []
    @Option(help: "An order type the key is limited to (repeatable; default all the merchant's)") var orderType: [String] = []
    @Option(help: "When the key stops working (RFC 3339, e.g. 2027-01-31T00:00:00Z)") var expiresAt: String?
    @Option(help: "A name for people, e.g. the partner holding the key") var name: String?
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        var expiry: Date?
        if let expiresAt {
            guard let date = DateTimeFormat.parseRFC3339(expiresAt) else {
                throw usageError("--expires-at \"\(expiresAt)\" is not an RFC 3339 date-time like 2027-01-31T00:00:00Z")
            }
            expiry = date
        }
        let created = try await database.withAdministration {
            try await $0.createAPIKey(
                merchantID: merchant, name: name ?? (scope.isEmpty ? "secret key" : "restricted key"), scopes: scope.isEmpty ? nil : scope,
                orderTypeIdentifiers: orderType.isEmpty ? nil : orderType, expiresAt: expiry)
        }
        let scopes = created.key.scopes?.joined(separator: " ") ?? "all"
        FileHandle.standardError.write(Data("id: \(created.key.id)  name: \(created.key.name)  scopes: \(scopes)\n".utf8))
        print(created.secret)
    }
}

struct RevokeAPIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-key", abstract: "Revoke one of a merchant's API keys: it answers 401 from then on, on every instance.")

    @Option(help: "Merchant id") var merchant: String
    @Option(help: "The key's id (key_…), as merchant keys lists it") var key: String
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let revoked = try await database.withAdministration { try await $0.revokeAPIKey(merchantID: merchant, id: key) }
        print("revoked \(revoked.id) (\(revoked.name)) at \(revoked.revokedAt.map(DateTimeFormat.formatRFC3339) ?? "")")
    }
}

struct ListAPIKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "List a merchant's API keys: id, name, prefix, scopes, order types, dates (never a secret).")

    @Option(help: "Merchant id") var merchant: String
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let keys = try await database.withAdministration { try await $0.apiKeys(merchantID: merchant) }
        let date = { (value: Date?) in value.map(DateTimeFormat.formatRFC3339) ?? "-" }
        for key in keys {
            print(
                "\(key.id)  \(key.name)  \(key.prefix)…  scopes: \(key.scopes?.joined(separator: " ") ?? "all")  "
                    + "order types: \(key.orderTypeIdentifiers?.joined(separator: " ") ?? "all")  created: \(date(key.createdAt))  "
                    + "expires: \(date(key.expiresAt))  revoked: \(date(key.revokedAt))  last used: \(date(key.lastUsedAt))")
        }
    }
}

struct OrderDefaultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order-defaults",
        abstract: "Show or set what fills the fields a payment provider's simplified order form lacks.",
        discussion: """
            Without options, prints the merchant's defaults. Options replace all three; an option left out has no default. \
            With --order-type, the defaults of that order type: what it leaves unset, its orders take from the merchant's.
            """)

    @Option(help: "Merchant id") var merchant: String
    @Option(help: "Only this order type's defaults (they win over the merchant's)") var orderType: String?
    @Option(help: "orderManagementURL of orders that name none (https)") var orderManagementURL: String?
    @Option(help: "fulfillmentType of fulfillments that name none (shipping or pickup)") var fulfillmentType: String?
    @Option(help: "payment.status of a total given without one (e.g. paid)") var paymentStatus: String?
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let defaults = try await database.withAdministration { administration in
            if orderManagementURL != nil || fulfillmentType != nil || paymentStatus != nil {
                try await administration.setOrderDefaults(
                    merchantID: merchant, orderTypeIdentifier: orderType,
                    ProviderVocabulary.Defaults(
                        orderManagementURL: orderManagementURL, fulfillmentType: fulfillmentType, paymentStatus: paymentStatus))
            }
            return try await administration.orderDefaults(merchantID: merchant, orderTypeIdentifier: orderType)
        }
        // A type's unset field shows what its orders get from the merchant.
        func line(_ name: String, _ own: String?, _ effective: String?) {
            let shown = own ?? effective.map { "\($0) (merchant default)" } ?? "(none)"
            print("\(name)\(String(repeating: " ", count: 20 - name.count))\(shown)")
        }
        line("orderManagementURL:", defaults.own.orderManagementURL, defaults.effective.orderManagementURL)
        line("fulfillmentType:", defaults.own.fulfillmentType, defaults.effective.fulfillmentType)
        line("paymentStatus:", defaults.own.paymentStatus, defaults.effective.paymentStatus)
    }
}

struct ListMerchantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List merchants with their order types and key prefixes.")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        try await database.withAdministration { administration in
            for merchant in try await administration.store.merchants() {
                let types = try await administration.store.orderTypes(merchantID: merchant.id).map(\.orderTypeIdentifier)
                let keys = try await administration.store.apiKeys(merchantID: merchant.id).map { $0.prefix + "…" }
                print("\(merchant.id)  \(merchant.name)  order types: \(types.joined(separator: ", "))  keys: \(keys.joined(separator: ", "))")
            }
        }
    }
}

struct OrderTypeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order-type", abstract: "Configure (the default) or delete a merchant's order types.",
        subcommands: [SetOrderTypeCommand.self, DeleteOrderTypeCommand.self], defaultSubcommand: SetOrderTypeCommand.self)
}

struct DeleteOrderTypeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a merchant's order type; one with orders only with --force, which deletes its orders too.",
        discussion:
            "Forced, the order type's orders go with it, and with them their device registrations, cached packages, wallet links, queued pushes, push log and activity, in one transaction. Restart a running SQLite server afterwards."
    )

    @Option(help: "Merchant id") var merchant: String
    @Option(help: "Order type identifier") var orderTypeIdentifier: String
    @Flag(help: "Delete the order type's orders with it") var force = false
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let deleted = try await database.withStore { store in
            try await reportingStoreProblems { try await store.deleteOrderType(orderTypeIdentifier, merchantID: merchant, force: force) }
        }
        print("deleted order type \(orderTypeIdentifier) and \(deleted.orders) order(s)")
    }
}

struct DeleteMerchantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a merchant with its keys and order types; one with orders only with --force.",
        discussion:
            "Everything the merchant owns goes in one transaction: API and lookup keys, order types, assets, Apple Pay identities, dashboard sessions; forced, its orders with their registrations, packages, queued pushes, push log and activity. Restart a running SQLite server afterwards."
    )

    @Option(help: "Merchant id") var merchant: String
    @Flag(help: "Delete the merchant's orders with it") var force = false
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let deleted = try await database.withStore { store in
            try await reportingStoreProblems { try await store.deleteMerchant(id: merchant, force: force) }
        }
        print("deleted merchant \(merchant), \(deleted.orderTypes) order type(s) and \(deleted.orders) order(s)")
    }
}

struct SetOrderTypeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Give a merchant an order type and the signing identity its packages and pushes use (by file path or PKCS#12).")

    @Option(help: "Merchant id") var merchant: String
    @Option(help: "Order type identifier, e.g. order.com.example.shop") var orderTypeIdentifier: String
    @Option(help: "Identity directory (certificate.pem, key.pem, wwdr.pem)") var identity: String?
    @Option(help: "Order Type ID certificate (PEM)") var certificate: String?
    @Option(help: "Private key (PEM)") var key: String?
    @Option(help: "WWDR intermediate (PEM)") var wwdr: String?
    @Option(help: "PKCS#12 bundle; its bytes are stored in the database") var p12: String?
    @Option(help: "Password of the key or .p12 (or ORDERTRACK_KEY_PASSWORD)") var keyPassword: String?
    @Option(help: "Push with this APNs token key (.p8) instead of the certificate") var apnsKeyP8: String?
    @Option(help: "Key ID of the .p8 key") var apnsKeyID: String?
    @Option(help: "Team ID of the developer account") var apnsTeamID: String?
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let password = keyPassword ?? ProcessInfo.processInfo.environment["ORDERTRACK_KEY_PASSWORD"]
        let absolute = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL.path }
        let configuration: IdentityConfig
        switch (identity, certificate, key, p12) {
        case (let directory?, nil, nil, nil):
            configuration = .directory(path: absolute(directory))
        case (nil, let certificate?, let key?, nil):
            configuration = .files(
                certificatePath: absolute(certificate), keyPath: absolute(key), keyPassword: password, wwdrPath: wwdr.map(absolute))
        case (nil, nil, nil, let p12?):
            guard let data = FileManager.default.contents(atPath: p12) else { throw usageError("cannot read \(p12)") }
            let wwdrPEM = try wwdr.map { path -> String in
                guard let data = FileManager.default.contents(atPath: path) else { throw usageError("cannot read \(path)") }
                return String(decoding: data, as: UTF8.self)
            }
            configuration = .pkcs12(bytes: Array(data), password: password ?? "", wwdrPEM: wwdrPEM)
        default:
            throw usageError("choose exactly one of --identity DIR, --certificate FILE --key FILE, or --p12 FILE")
        }
        var apnsToken: APNsTokenConfig?
        switch (apnsKeyP8, apnsKeyID, apnsTeamID) {
        case (nil, nil, nil):
            apnsToken = nil
        case (let path?, let keyID?, let teamID?):
            guard let data = FileManager.default.contents(atPath: path) else { throw usageError("cannot read \(path)") }
            apnsToken = APNsTokenConfig(p8PEM: String(decoding: data, as: UTF8.self), keyID: keyID, teamID: teamID)
        default:
            throw usageError("--apns-key-p8, --apns-key-id and --apns-team-id go together")
        }
        let loaded = try await database.withAdministration {
            try await $0.setOrderType(merchantID: merchant, orderTypeIdentifier: orderTypeIdentifier, identity: configuration, apnsToken: apnsToken)
        }
        print("order type \(orderTypeIdentifier) now signs with \(loaded.certificate.subject) (valid until \(loaded.notValidAfter))")
    }
}
