import Foundation
import OrderPersistence

/// A configuration value that cannot be used, and why.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var setting: String
    public var message: String

    public var description: String { "\(setting): \(message)" }
}

/// Where the server listens, where it keeps its data and how it names itself to devices.
public struct ServerConfiguration: Sendable {
    public enum Database: Sendable, Equatable {
        case sqlite(path: String)
        /// Shared by any number of instances.
        case postgres(PostgresStoreConfiguration)

        /// Whether this process is the database's only writer, so it may cache what it wrote and take back
        /// push claims left by a killed predecessor at once.
        public var isExclusive: Bool {
            switch self {
            case .sqlite: true
            case .postgres: false
            }
        }

        /// How often an idle push dispatcher looks for work. With SQLite every change is made in this process,
        /// which wakes the dispatcher itself; on a shared database another instance may have queued the work.
        var outboxPollInterval: Duration {
            switch self {
            case .sqlite: .seconds(1)
            case .postgres: .milliseconds(200)
            }
        }
    }

    public var host: String
    public var port: Int
    public var dataDirectory: URL
    public var database: Database
    /// The base URL devices reach this server at; orders get `webServiceURL = <publicURL>/wallet`.
    public var publicURL: String
    /// Largest merchant request body (order content, assets, PKCS#12 uploads).
    public var maximumMerchantBodySize: Int
    /// Largest device request body (push token, log entries).
    public var maximumDeviceBodySize: Int
    /// Bytes of signed packages kept in memory for device fetches.
    public var packageCacheBytes: Int
    /// Bytes of order records kept in memory for device calls.
    public var orderCacheBytes = 64 * 1024 * 1024
    /// APNs endpoint, trust and delivery policy.
    public var push: PushConfiguration
    /// How long the push log and idempotency keys are kept.
    public var retention: RetentionConfiguration
    /// Token trust and merchant validation.
    public var applePay = ApplePayConfiguration()
    /// Order lookup: the per-key rate limit, the storefront of transactions, the signed-transaction cache.
    public var lookup = LookupConfiguration()
    /// Carrier tracking webhooks: the hosts ShipEngine key sets may come from, key and connection caching.
    public var carriers = CarrierConfiguration()
    /// Webhook deliveries to merchants: retries, disabling, the worker's claims.
    public var webhooks = WebhookConfiguration()
    /// How long a request's body may take to arrive after its headers before the server answers 408 and closes the
    /// connection (slow or stalled uploads hold a connection no longer than this).
    public var requestBodyTimeout: Duration = .seconds(30)
    /// How long a connection may stay without a request under way, including while a request's headers are still
    /// arriving; longer than the 60 s load balancers commonly keep idle connections, so they close first.
    public var idleTimeout: Duration = .seconds(75)
    /// Registrations per order and request rates (see ``LimitsConfiguration``).
    public var limits = LimitsConfiguration()
    /// Development mode (`--dev` / `--no-dev`): `nil` turns it on for SQLite and off for PostgreSQL.
    public var developmentMode: Bool?
    /// Where the master key comes from; see ``MasterKeySource``.
    public var masterKey: MasterKeySource?

    /// Whether the server runs in development mode: a demo merchant, API key and development signing identity on an
    /// empty store, and a master key generated in the data directory when none is given. On by default with SQLite
    /// (the embedded default or any `--data-dir`), off with PostgreSQL unless `--dev`.
    public var isDevelopment: Bool {
        if let developmentMode { return developmentMode }
        if case .sqlite = database { return true }
        return false
    }

    /// Builds a configuration, resolving defaults the way the `serve` command documents them.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        dataDirectory: String = "./ordertrack-data",
        databaseURL: String? = nil,
        publicURL: String? = nil,
        maximumMerchantBodySize: Int = 4 * 1024 * 1024,
        maximumDeviceBodySize: Int = 64 * 1024,
        packageCacheBytes: Int = 256 * 1024 * 1024,
        push: PushConfiguration = PushConfiguration(),
        retention: RetentionConfiguration = RetentionConfiguration()
    ) throws(ConfigurationError) {
        guard (0...65_535).contains(port) else {
            throw ConfigurationError(setting: "port", message: "\(port) is not a TCP port (0–65535)")
        }
        guard !host.isEmpty else { throw ConfigurationError(setting: "host", message: "must not be empty") }
        self.host = host
        self.port = port
        self.dataDirectory = URL(fileURLWithPath: dataDirectory, isDirectory: true).standardizedFileURL
        self.database = try Self.parseDatabaseURL(databaseURL ?? "sqlite://\(self.dataDirectory.appendingPathComponent("ordertrack.sqlite").path)")
        let resolvedPublicURL = publicURL ?? "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        guard let components = URLComponents(string: resolvedPublicURL), let scheme = components.scheme, ["http", "https"].contains(scheme),
            components.host?.isEmpty == false, components.query == nil, components.fragment == nil
        else {
            throw ConfigurationError(
                setting: "public-url",
                message:
                    "\"\(resolvedPublicURL)\" must be an absolute http:// or https:// URL without query or fragment, like https://orders.example.com")
        }
        self.publicURL = resolvedPublicURL.hasSuffix("/") ? String(resolvedPublicURL.dropLast()) : resolvedPublicURL
        for (name, value) in [
            ("maximum merchant body size", maximumMerchantBodySize), ("maximum device body size", maximumDeviceBodySize),
            ("package cache size", packageCacheBytes),
        ] where value <= 0 {
            throw ConfigurationError(setting: name, message: "must be positive, but is \(value)")
        }
        self.maximumMerchantBodySize = maximumMerchantBodySize
        self.maximumDeviceBodySize = maximumDeviceBodySize
        self.packageCacheBytes = packageCacheBytes
        guard push.endpoint.scheme == "https", push.endpoint.host != nil else {
            throw ConfigurationError(
                setting: "apns-endpoint", message: "\"\(push.endpoint)\" must be an https:// URL such as https://api.push.apple.com")
        }
        guard push.expiration >= 0, push.concurrency > 0, push.maximumAttempts > 0 else {
            throw ConfigurationError(setting: "push", message: "expiration must not be negative; concurrency and attempts must be positive")
        }
        self.push = push
        if let pushLog = retention.pushLog, pushLog <= 0 {
            throw ConfigurationError(setting: "push-log-retention-days", message: "must be positive, or absent to keep the push log forever")
        }
        self.retention = retention
    }

    /// `<publicURL>/wallet`: what devices append `v1/...` to.
    public var webServiceURL: String { publicURL + "/wallet" }

    /// Whether the public URL is plain HTTP, which Wallet refuses; accepted for local development with warnings.
    public var isInsecure: Bool { publicURL.hasPrefix("http://") }

    static func parseDatabaseURL(_ text: String) throws(ConfigurationError) -> Database {
        if text.hasPrefix("sqlite://") {
            let path = String(text.dropFirst("sqlite://".count))
            guard !path.isEmpty else {
                throw ConfigurationError(
                    setting: "database", message: "sqlite:// needs a file path, like sqlite:///var/lib/ordertrack/ordertrack.sqlite")
            }
            return .sqlite(path: path)
        }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            do {
                return .postgres(try PostgresStoreConfiguration(url: text))
            } catch {
                throw ConfigurationError(setting: "database", message: "\(error)")
            }
        }
        throw ConfigurationError(
            setting: "database",
            message:
                "\"\(PostgresStoreConfiguration.redacted(text))\" is not a database URL; use sqlite://PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE"
        )
    }
}
