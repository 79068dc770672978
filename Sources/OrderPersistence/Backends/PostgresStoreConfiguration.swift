import Foundation

/// Where and how the store reaches PostgreSQL, read from a `postgres://` URL.
///
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE&schema=NAME&pool=N&statement_timeout=MS`
/// - `sslmode`: `require` (the default: TLS or no connection, so a server or man in the middle that declines TLS cannot
///   downgrade the connection to plain text), `prefer` (TLS when the server offers it) or `disable` (plain TCP, for a
///   server on the same host or a private test database).
/// - `schema`: the schema OrderTrack's tables live in (created if missing); `public` by default. Lets several
///   deployments (or test runs) share one database.
/// - `pool`: connections per instance (default 10); with the change feed's and the two claim connections, keep
///   `(pool + 3) × instances` under the server's `max_connections`.
/// - `statement_timeout`: milliseconds a statement may run before PostgreSQL cancels it (default 10000).
/// - `connect_timeout`: seconds opening one connection may take, 1 to 600 (default 5).
/// - `prepared_statements`: `on` (the default: statements that repeat are prepared once per connection) or `off` (for a
///   pooler in transaction mode that does not keep prepared statements or session settings, such as PgBouncer before
///   1.21; the queues' claims then set their planner settings in their own transaction).
public struct PostgresStoreConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// Whether connections use TLS, as libpq's `sslmode`: never, when the server offers it, or always.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// `disable`: plain TCP; `prefer`: TLS if the server supports it; `require`: TLS or no connection.
        case disable, prefer, require
    }

    /// The server's host name or address.
    public var host: String
    /// The server's TCP port; 5432 unless the URL names one.
    public var port: Int
    /// The role to log in as.
    public var username: String
    /// The role's password, if the URL has one.
    public var password: String?
    /// The database to connect to: the URL's path.
    public var database: String
    /// `sslmode`; ``TLSMode/require`` by default.
    public var tls: TLSMode
    /// The schema OrderTrack's tables live in; `public` by default.
    public var schema: String
    /// Connections per instance; 10 by default.
    public var poolSize: Int
    /// Milliseconds a statement may run before PostgreSQL cancels it (0 disables the limit); 10,000 by default.
    public var statementTimeoutMilliseconds: Int
    /// How long opening one connection may take before the operation fails as "database unavailable".
    public var connectTimeout: Duration
    /// Whether statements that repeat are prepared once per connection; `true` by default.
    public var preparesStatements: Bool

    /// Parses a `postgres://` or `postgresql://` URL; every problem names the part of the URL at fault.
    ///
    /// - Throws: ``OrderStoreError/invalidArgument(name:reason:)`` for a URL that is not `postgres://`, lacks the host,
    ///   user or database, or has an unknown or out-of-range parameter.
    public init(url text: String) throws(OrderStoreError) {
        func invalid(_ reason: String) -> OrderStoreError {
            .invalidArgument(name: "database URL", reason: "\(reason); expected postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else { throw invalid("\"\(Self.redacted(text))\" is not a postgres:// URL") }
        guard let host = components.host, !host.isEmpty else { throw invalid("the host is missing") }
        guard let username = components.user, !username.isEmpty else { throw invalid("the user name is missing") }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw invalid("port \(port) is not a TCP port") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw invalid("the database name (the path) is missing or has a '/'") }
        self.host = host
        self.port = port
        self.username = username
        self.password = components.password
        self.database = database
        self.tls = .require
        self.schema = "public"
        self.poolSize = 10
        self.statementTimeoutMilliseconds = 10_000
        self.connectTimeout = .seconds(5)
        self.preparesStatements = true
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name.lowercased() {
            case "sslmode", "tlsmode":
                guard let mode = TLSMode(rawValue: value.lowercased()) else {
                    throw invalid("sslmode \"\(value)\" is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = mode
            case "schema":
                // Used as an identifier in SET search_path and CREATE SCHEMA, so only plain lowercase names.
                guard value.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                    throw invalid("schema \"\(value)\" must be a lowercase identifier (letters, digits, underscore; at most 63)")
                }
                schema = value
            case "pool":
                guard let size = Int(value), (1...1000).contains(size) else { throw invalid("pool \"\(value)\" must be a number from 1 to 1000") }
                poolSize = size
            case "statement_timeout":
                guard let milliseconds = Int(value), milliseconds >= 0 else {
                    throw invalid("statement_timeout \"\(value)\" must be milliseconds (0 disables it)")
                }
                statementTimeoutMilliseconds = milliseconds
            case "connect_timeout":
                guard let seconds = Int(value), (1...600).contains(seconds) else {
                    throw invalid("connect_timeout \"\(value)\" must be seconds from 1 to 600")
                }
                connectTimeout = .seconds(seconds)
            case "prepared_statements":
                switch value.lowercased() {
                case "on": preparesStatements = true
                case "off": preparesStatements = false
                default: throw invalid("prepared_statements \"\(value)\" must be on or off")
                }
            default:
                throw invalid(
                    "unknown parameter \"\(item.name)\" (known: sslmode, schema, pool, statement_timeout, connect_timeout, prepared_statements)")
            }
        }
    }

    /// The URL without its password, for logs and messages.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)&schema=\(schema)&pool=\(poolSize)"
    }

    /// `text` with the password of a `scheme://user:password@host` URL replaced by `***`, for error messages; works on
    /// text that is not a valid URL too, since that is when it is shown.
    public static func redacted(_ text: String) -> String {
        text.replacingOccurrences(of: "(://[^/@:]*):[^@/]*@", with: "$1:***@", options: .regularExpression)
    }
}
