import Foundation

/// Which database the store-backed tests run on.
///
/// - `ORDERTRACK_TEST_POSTGRES_URL`: a PostgreSQL server the tests may create schemas in (`scripts/test` starts one
///   when PostgreSQL is installed). Without it, PostgreSQL-only tests are skipped with ``skipReason``.
/// - `ORDERTRACK_TEST_STORE=postgres`: run every store-backed test on that server instead of SQLite, each in a
///   schema of its own (`scripts/test` runs the suite once per database).
public enum TestDatabase {
    public static let postgresURL: String? = {
        let url = ProcessInfo.processInfo.environment["ORDERTRACK_TEST_POSTGRES_URL"] ?? ""
        return url.isEmpty ? nil : url
    }()

    public static let skipReason =
        "needs a PostgreSQL server: set ORDERTRACK_TEST_POSTGRES_URL (scripts/test starts one when PostgreSQL is installed)"

    /// Whether store-backed tests run on PostgreSQL rather than SQLite.
    public static var usesPostgres: Bool {
        ProcessInfo.processInfo.environment["ORDERTRACK_TEST_STORE"] == "postgres"
    }

    /// A database URL for one test: a new, empty schema on the test server, or `nil` to use SQLite.
    public static func storeURL() throws -> String? {
        guard usesPostgres else { return nil }
        return try freshPostgresURL()
    }

    /// A URL whose `schema` nobody has used yet; throws if no server is configured.
    public static func freshPostgresURL() throws -> String {
        guard let postgresURL else {
            throw ConfigurationMissing(description: "ORDERTRACK_TEST_STORE=postgres needs ORDERTRACK_TEST_POSTGRES_URL")
        }
        let schema = schemaPrefix + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        // Four tests at once on two cores: a statement may wait for the CPU longer than production's 10 s allow (a
        // batch of 5,000 push log deletions did), and a cancelled statement would fail a test that asserts no timing.
        return postgresURL + (postgresURL.contains("?") ? "&" : "?") + "schema=" + schema + "&statement_timeout=60000"
    }

    /// What every test schema's name starts with: `ORDERTRACK_TEST_SCHEMA_PREFIX` (lower-case letters, digits and
    /// underscores) or `t_`. `scripts/test` gives each run a prefix of its own and drops the run's schemas at its end,
    /// so a developer's own server does not collect one schema per test run after run.
    static let schemaPrefix: String = {
        let prefix = ProcessInfo.processInfo.environment["ORDERTRACK_TEST_SCHEMA_PREFIX"] ?? ""
        let allowed = (1...24).contains(prefix.count) && prefix.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }
        return allowed ? prefix : "t_"
    }()

    public struct ConfigurationMissing: Error, CustomStringConvertible {
        public var description: String
    }
}
