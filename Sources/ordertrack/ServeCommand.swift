import ArgumentParser
import Foundation
import Logging
import OrderTrackDashboard
import OrderTrackServer
import X509

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Wallet Orders web service and the merchant API. Every option can also be set as ORDERTRACK_<NAME> (e.g. ORDERTRACK_PORT).")

    @OptionGroup(title: "Limits")
    var limitOptions: LimitOptions

    @Option(help: "Address to listen on (default 127.0.0.1)")
    var host: String?

    @Option(help: "Port to listen on (default 8080)")
    var port: Int?

    @Option(help: "Data directory: database, development identity, credentials (default ./ordertrack-data)")
    var dataDir: String?

    @Option(help: "Database URL (default sqlite://<data-dir>/ordertrack.sqlite)")
    var database: String?

    @Option(help: "Base URL devices reach this server at (default http://<host>:<port>); orders get webServiceURL <public-url>/wallet")
    var publicURL: String?

    @Option(help: "APNs endpoint (default https://api.push.apple.com, production, which Wallet uses)")
    var apnsEndpoint: String?

    @Option(help: "Extra trusted root certificate (PEM) for the APNs endpoint, e.g. a local mock's CA")
    var apnsCAFile: String?

    @Option(help: "Seconds APNs keeps an undelivered push (apns-expiration; default 86400)")
    var apnsExpiration: Int?

    @Option(help: "Seconds a push claim lasts; a job whose instance died is sent by another after it (default 60)")
    var pushLeaseSeconds: Int?

    @Option(help: "Attempts before a push that keeps failing with 429, 5xx, a timeout or a lost connection is parked (default 10)")
    var pushMaxAttempts: Int?

    @Option(help: "Seconds a claim on carrier tracking events lasts; events whose instance died are applied by another after it (default 60)")
    var carrierLeaseSeconds: Int?

    @Option(help: "Pushes in flight at once (default 1000, what APNs allows on one connection)")
    var pushConcurrency: Int?

    @Option(help: "Seconds to wait for one APNs answer before retrying it later (default 30)")
    var apnsTimeout: Int?

    @Option(help: "Days push log entries, order activity (the transcript) and merchant events are kept; 0 keeps them forever (default 30)")
    var pushLogRetentionDays: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default info)")
    var logLevel: String?

    @Option(help: "Extra trusted root (PEM) for Apple Pay token signatures, next to Apple Root CA - G3; tests and certification only")
    var applePayRoot: String?

    @Option(help: "Seconds an Apple Pay token's signing time may be from the server's clock (default 300)")
    var applePayTokenMaxAge: Int?

    @Option(help: "Tests only: send merchant validation to this https://host:port stand-in instead of Apple's gateway")
    var applePayGatewayTestURL: String?

    @Option(help: "Tests only: the root (PEM) of the --apple-pay-gateway-test-url stand-in's server certificate")
    var applePayGatewayTestRoot: String?

    @Option(help: "Order lookups one lookup key may make per --lookup-rate-window; more are answered 429 (default 600)")
    var lookupRateLimit: Int?

    @Option(help: "Seconds of the order-lookup rate-limit window (default 60)")
    var lookupRateWindow: Int?

    @Option(help: "ISO 3166-1 alpha-3 storefront written to signed transactions of order lookups (default USA)")
    var lookupStorefront: String?

    @Option(help: "MiB of order records kept in memory for device calls (default 64)")
    var orderCacheMb: Int?

    @Option(help: "MiB of signed packages kept in memory (default 256)")
    var packageCacheMb: Int?

    @Option(help: "File holding the master key (base64 of 32 bytes) that seals stored private keys; or set ORDERTRACK_MASTER_KEY to the key")
    var masterKeyFile: String?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Development mode: a demo merchant, key and development identity on an empty store, a generated master key (default: on for SQLite, off for PostgreSQL)"
    )
    var dev: Bool?

    @Flag(
        name: .customLong("mock-apns"),
        help: "Development mode: send pushes to the bundled mock APNs on a free loopback port and print each one (or ORDERTRACK_MOCK_APNS=1)")
    var mockApns = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func setting(_ value: String?, _ name: String) -> String? { value ?? environment["ORDERTRACK_\(name)"] }
        let levelText = setting(logLevel, "LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText) else {
            throw usageError("log level \"\(levelText)\" is not one of trace, debug, info, notice, warning, error, critical")
        }
        // An integer option, or else its environment variable, checked against its range.
        func integer(_ value: Int?, _ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            let flag = "--" + name.lowercased().replacingOccurrences(of: "_", with: "-")
            let source: (text: String, origin: String)
            if let value {
                source = (String(value), flag)
            } else if let text = environment["ORDERTRACK_\(name)"] {
                source = (text, "ORDERTRACK_\(name)")
            } else {
                return nil
            }
            guard let number = Int(source.text) else { throw usageError("\(source.origin) \"\(source.text)\" is not a whole number") }
            guard range.contains(number) else {
                throw usageError("\(source.origin) \(number) must be from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        let portNumber = try integer(port, "PORT", 0...65535) ?? 8080
        var push = PushConfiguration()
        if let text = setting(apnsEndpoint, "APNS_ENDPOINT") {
            guard let url = URL(string: text) else { throw usageError("--apns-endpoint \"\(text)\" is not a URL") }
            push.endpoint = url
        }
        if let path = setting(apnsCAFile, "APNS_CA_FILE") {
            guard let data = FileManager.default.contents(atPath: path) else { throw usageError("cannot read --apns-ca-file \(path)") }
            push.extraTrustRootsPEM = String(decoding: data, as: UTF8.self)
        }
        // Zero would let APNs drop the push for a device that is offline at that moment.
        if let seconds = try integer(apnsExpiration, "APNS_EXPIRATION", 1...2_592_000) { push.expiration = TimeInterval(seconds) }
        if let seconds = try integer(pushLeaseSeconds, "PUSH_LEASE_SECONDS", 1...3600) { push.leaseDuration = TimeInterval(seconds) }
        if let attempts = try integer(pushMaxAttempts, "PUSH_MAX_ATTEMPTS", 1...100) { push.maximumAttempts = attempts }
        if let pushes = try integer(pushConcurrency, "PUSH_CONCURRENCY", 1...10_000) { push.concurrency = pushes }
        if let seconds = try integer(apnsTimeout, "APNS_TIMEOUT", 1...300) { push.timeout = .seconds(seconds) }
        var retention = RetentionConfiguration()
        if let days = try integer(pushLogRetentionDays, "PUSH_LOG_RETENTION_DAYS", 0...36_500) {
            retention.pushLog = days == 0 ? nil : TimeInterval(days) * 86_400
        }
        var applePay = ApplePayConfiguration()
        if let path = setting(applePayRoot, "APPLE_PAY_ROOT") {
            guard let data = FileManager.default.contents(atPath: path),
                let root = try? Certificate(pemEncoded: String(decoding: data, as: UTF8.self))
            else { throw usageError("--apple-pay-root \(path) is not a readable PEM certificate") }
            applePay.additionalTrustRoots = [root]
        }
        if let seconds = try integer(applePayTokenMaxAge, "APPLE_PAY_TOKEN_MAX_AGE", 1...86_400) { applePay.tokenMaxAge = TimeInterval(seconds) }
        if let text = setting(applePayGatewayTestURL, "APPLE_PAY_GATEWAY_TEST_URL") {
            guard let url = URL(string: text), url.scheme == "https", url.host != nil else {
                throw usageError("--apple-pay-gateway-test-url \"\(text)\" is not an https://host:port URL")
            }
            guard let path = setting(applePayGatewayTestRoot, "APPLE_PAY_GATEWAY_TEST_ROOT"), let data = FileManager.default.contents(atPath: path)
            else {
                throw usageError("--apple-pay-gateway-test-url needs --apple-pay-gateway-test-root: the stand-in's root certificate (PEM)")
            }
            applePay.testGateway = ApplePayConfiguration.TestGateway(origin: url, trustRootPEM: String(decoding: data, as: UTF8.self))
        }
        var lookup = LookupConfiguration()
        if let count = try integer(lookupRateLimit, "LOOKUP_RATE_LIMIT", 1...1_000_000) { lookup.rateLimit = count }
        if let seconds = try integer(lookupRateWindow, "LOOKUP_RATE_WINDOW", 1...86_400) { lookup.rateLimitWindow = .seconds(seconds) }
        if let storefront = setting(lookupStorefront, "LOOKUP_STOREFRONT") {
            guard storefront.count == 3, storefront.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw usageError("--lookup-storefront \"\(storefront)\" is not an ISO 3166-1 alpha-3 code such as USA")
            }
            lookup.storefront = storefront
        }
        let orderCache = try integer(orderCacheMb, "ORDER_CACHE_MB", 1...65_536)
        let packageCache = try integer(packageCacheMb, "PACKAGE_CACHE_MB", 1...65_536)
        let limits = try limitOptions.limits(environment: environment)
        let idleTimeout = try limitOptions.idle(environment: environment)
        var configuration: ServerConfiguration
        do {
            var resolved = try ServerConfiguration(
                host: setting(host, "HOST") ?? "127.0.0.1", port: portNumber, dataDirectory: setting(dataDir, "DATA_DIR") ?? "./ordertrack-data",
                databaseURL: setting(database, "DATABASE"), publicURL: setting(publicURL, "PUBLIC_URL"), push: push, retention: retention)
            resolved.applePay = applePay
            resolved.lookup = lookup
            resolved.limits = limits
            if let idleTimeout { resolved.idleTimeout = idleTimeout }
            if let seconds = try integer(carrierLeaseSeconds, "CARRIER_LEASE_SECONDS", 1...3600) {
                resolved.carriers.leaseDuration = TimeInterval(seconds)
            }
            resolved.developmentMode = try dev ?? boolean(environment["ORDERTRACK_DEV"], "ORDERTRACK_DEV")
            resolved.masterKey = masterKeySource(file: masterKeyFile, environment: environment)
            if let orderCache { resolved.orderCacheBytes = orderCache << 20 }
            if let packageCache { resolved.packageCacheBytes = packageCache << 20 }
            configuration = resolved
        } catch {
            throw usageError("\(error)")
        }
        LoggingSystem.bootstrap { StandardOutputLogHandler(label: $0, level: level) }
        if case .postgres = configuration.database, runTasksOnEventLoops() {
            Logger(label: "ordertrack").info("tasks run on the event loops")
        }
        var localAPNs: LocalMockAPNs?
        if try mockApns || boolean(environment["ORDERTRACK_MOCK_APNS"], "ORDERTRACK_MOCK_APNS") == true {
            guard configuration.isDevelopment else {
                throw usageError("--mock-apns is for development mode: in production pushes go to Apple's APNs")
            }
            let mock = try await LocalMockAPNs.start { announce(LocalMockAPNs.line($0)) }
            configuration.push.endpoint = mock.endpoint
            configuration.push.extraTrustRootsPEM = mock.trustRootPEM
            localAPNs = mock
            announce("Pushes go to the bundled mock APNs on 127.0.0.1:\(mock.server.port) (--mock-apns); each is printed here")
        } else if configuration.isDevelopment, configuration.push.isApplesAPNs {
            announce(
                "Development mode: pushes of order types with a development identity are not sent to Apple's APNs, which would refuse "
                    + "them; start with --mock-apns to see each push on this machine")
        }
        let logger = Logger(label: "ordertrack")
        let resolved = configuration
        let server = try await reportingStoreProblems {
            try await OrderTrackApplication.build(configuration: resolved, logger: logger, routes: [Dashboard()]) { port in
                announce("OrderTrack listening on \(resolved.host):\(port); devices use \(resolved.webServiceURL)")
            }
        }
        let dashboard = "\(configuration.publicURL)/dashboard"
        if server.developmentCredentials == nil, configuration.isDevelopment {
            let file = configuration.dataDirectory.appendingPathComponent("dev-credentials.json")
            if FileManager.default.fileExists(atPath: file.path) {
                announce("Development mode: the demo merchant's API key is in \(file.path)")
            }
        }
        announce("Dashboard: \(dashboard)   Checkout playground: \(dashboard)/checkout")
        if let credentials = server.developmentCredentials {
            // Standard output is the log stream unless a person watches it: the key itself only goes to a terminal.
            let file = configuration.dataDirectory.appendingPathComponent("dev-credentials.json").path
            if isatty(STDOUT_FILENO) == 1 {
                announce(
                    """

                    OrderTrack created a demo merchant and a development signing identity (not trusted by Wallet).
                      API key:     \(credentials.apiKey)
                      credentials: \(file)
                    Create an order:

                    \(server.developmentExample ?? "")

                    """)
            } else {
                announce("OrderTrack created a demo merchant and a development signing identity; its API key is in \(file)")
            }
        }
        try await server.run()
        try await localAPNs?.server.shutdown()
    }
}

/// `--master-key-file`, else `ORDERTRACK_MASTER_KEY_FILE`, else the key itself in `ORDERTRACK_MASTER_KEY`.
func masterKeySource(file: String?, environment: [String: String]) -> MasterKeySource? {
    if let path = file ?? environment["ORDERTRACK_MASTER_KEY_FILE"] { return .file(path: path) }
    return environment["ORDERTRACK_MASTER_KEY"].map(MasterKeySource.environment)
}

/// A boolean environment variable: `1`/`true`/`yes` or `0`/`false`/`no`; `nil` when unset.
func boolean(_ text: String?, _ name: String) throws -> Bool? {
    guard let text else { return nil }
    switch text.lowercased() {
    case "1", "true", "yes": return true
    case "0", "false", "no": return false
    default: throw usageError("\(name) \"\(text)\" is not true or false")
    }
}
