import Foundation
import Logging
import NIOSSL
import PostgresKit

/// PostgreSQL through PostgresNIO: a pool of connections that several OrderTrack instances share the database with.
///
/// Transactions run at READ COMMITTED. Concurrent writers are ordered by row locks (the change counter row, push job
/// rows claimed with `FOR UPDATE SKIP LOCKED`); a deadlock or serialization failure aborts the whole transaction,
/// which is then run again, as is any transaction whose connection dropped before it was committed.
final class PostgresBackend: SQLStoreBackend {
    let pool: PostgresConnectionPool
    /// Connections for the queues' claims, whose sessions plan with index scans only (``withQueueClaim(_:)``); `nil`
    /// behind a pooler, which does not keep a session's settings.
    let claimPool: PostgresConnectionPool?
    let logger: Logger
    /// The schema the store's tables live in; change notifications of other schemas are ignored.
    let schema: String
    /// The retries' back-off, the pool's waits and the listener's probes and reconnections.
    let clock: any Clock<Duration>
    /// Whether statements that repeat run prepared (``PostgresStatementCache``); off behind a pooler that does not
    /// keep a session's prepared statements.
    let preparesStatements: Bool
    /// Runs of one transaction before a transient failure is reported. Deadlocks between the outbox's upserts and
    /// the dispatcher's deletes are part of normal operation under load, so there is room for several.
    static let maximumAttempts = 8

    private init(
        pool: PostgresConnectionPool, claimPool: PostgresConnectionPool?, schema: String, preparesStatements: Bool, logger: Logger,
        clock: any Clock<Duration>
    ) {
        self.pool = pool
        self.claimPool = claimPool
        self.preparesStatements = preparesStatements
        self.schema = schema
        self.logger = logger
        self.clock = clock
    }

    static func open(_ configuration: PostgresStoreConfiguration, logger: Logger, clock: any Clock<Duration>) async throws -> PostgresBackend {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch configuration.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw OrderStoreError.openFailed(path: configuration.description, reason: "cannot set up TLS: \(error)")
        }
        var connection = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: tls)
        connection.options.connectTimeout = .milliseconds(Int64(configuration.connectTimeout.components.seconds * 1000))
        connection.options.additionalStartupParameters = [
            ("application_name", "ordertrack"),
            ("search_path", configuration.schema),
            ("statement_timeout", String(configuration.statementTimeoutMilliseconds)),
            // A transaction left open by a stalled or killed instance must not hold its row locks for long.
            ("idle_in_transaction_session_timeout", "60000"),
        ]
        var claims = connection
        claims.options.additionalStartupParameters += Self.claimSettings
        let backend = PostgresBackend(
            pool: PostgresConnectionPool(configuration: connection, size: configuration.poolSize, logger: logger, clock: clock),
            claimPool: configuration.preparesStatements
                ? PostgresConnectionPool(configuration: claims, size: Self.claimPoolSize, logger: logger, clock: clock) : nil,
            schema: configuration.schema, preparesStatements: configuration.preparesStatements, logger: logger, clock: clock)
        do {
            try await backend.withWriteTransaction(preparing: false) { db in
                try await db.raw("SELECT pg_advisory_xact_lock(hashtext('ordertrack schema ' || \(bind: configuration.schema)))").run()
                try await db.raw("CREATE SCHEMA IF NOT EXISTS \(ident: configuration.schema)").run()
            }
        } catch {
            await backend.closePools()
            throw OrderStoreError.openFailed(path: configuration.description, reason: backend.describe(error).message)
        }
        return backend
    }

    func withWriteTransaction<T: Sendable>(preparing: Bool, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await retrying { committed in
            try await pool.withConnection(
                { connection in
                    let database = connection.sql(preparing: preparing && preparesStatements)
                    try await database.raw("BEGIN").run()
                    do {
                        let result = try await body(database)
                        committed = true
                        try await database.raw("COMMIT").run()
                        return result
                    } catch {
                        let lost = Self.isLostConnection(error) || connection.isClosed
                        committed = committed && lost
                        // No ROLLBACK on a connection that is gone: PostgresNIO never answers a statement written to a
                        // closed connection, so it would wait forever, and every update queued behind it in the
                        // group commit with it (the soak's PostgreSQL restart found this). The server rolled back.
                        if !lost {
                            do {
                                try await database.raw("ROLLBACK").run()
                            } catch {
                                // The connection's transaction state is unknown: never hand it out again.
                                try? await connection.close()
                            }
                        }
                        throw error
                    }
                }, reusableAfter: Self.isReusable(after:))
        }
    }

    func withSingleStatementWrite<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await retrying { sent in
            try await pool.withConnection(
                { connection in
                    sent = true
                    return try await body(connection.sql(preparing: preparesStatements))
                }, reusableAfter: Self.isReusable(after:))
        }
    }

    /// On a connection of ``claimPool`` the claim is one round trip; through a pooler, a transaction that changes the
    /// settings for itself first takes four (begin, the settings, the claim, commit).
    func withQueueClaim<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        guard let claimPool else {
            return try await withWriteTransaction { db in
                try await db.raw(Self.transactionClaimSettings).run()
                return try await body(db)
            }
        }
        return try await retrying { sent in
            try await claimPool.withConnection(
                { connection in
                    sent = true
                    return try await body(connection.sql(preparing: true))
                }, reusableAfter: Self.isReusable(after:))
        }
    }

    /// The planner settings of a queue's claim: between vacuums each delivered job leaves its entry in the queue's
    /// index: during `bench carrier`, 2,247 entries for 28 live jobs, and claims by bitmap scan took 1.6 ms on average;
    /// in index order, 0.25 ms.
    static let claimSettings = [("enable_seqscan", "off"), ("enable_bitmapscan", "off")]
    static let transactionClaimSettings: SQLQueryString =
        "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)"
    /// The push dispatcher and the carrier worker each claim one batch at a time.
    static let claimPoolSize = 2

    func withReader<T: Sendable>(_ extent: ReadExtent, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await retrying { _ in
            try await pool.withConnection(
                { connection in
                    try await body(connection.sql(preparing: preparesStatements))
                }, reusableAfter: Self.isReusable(after:))
        }
    }

    /// Runs `operation` again after a deadlock, a serialization failure or a connection lost before COMMIT was sent.
    /// A connection lost during COMMIT is not retried: the transaction may have committed.
    private func retrying<T>(_ operation: (inout Bool) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            var commitSent = false
            do {
                return try await operation(&commitSent)
            } catch {
                let kind = describe(error).kind
                let retryable = kind == .transient || (kind == .unavailable && !commitSent && !(error is PostgresUnreachable))
                guard retryable, attempt < Self.maximumAttempts else { throw error }
                logger.debug(
                    "retrying a database transaction", metadata: ["attempt": .stringConvertible(attempt), "error": .string(describe(error).message)])
                try await clock.sleep(for: .milliseconds(Int.random(in: 5...20) * min(attempt, 5)))
                attempt += 1
            }
        }
    }

    func describe(_ error: any Error) -> BackendErrorDescription {
        if let error = error as? PostgresUnreachable {
            return .init(kind: .unavailable, message: error.description)
        }
        if Self.isLostConnection(error) {
            return .init(kind: .unavailable, message: "lost the connection to PostgreSQL: \(Self.message(of: error))")
        }
        guard let error = error as? PSQLError else {
            return .init(kind: .other, message: String(describing: error))
        }
        let state = error.serverInfo?[.sqlState] ?? ""
        let message = Self.message(of: error)
        switch state {
        case "23505": return .init(kind: .uniqueViolation, message: message)
        case "23503": return .init(kind: .foreignKeyViolation, message: message)
        case "40001", "40P01": return .init(kind: .transient, message: message)
        // A statement prepared before a migration changed its columns: the connection is replaced
        // (`isReusable(after:)`) and the transaction runs again.
        case "0A000" where message.contains("cached plan"): return .init(kind: .transient, message: message)
        case "57014": return .init(kind: .busy, message: "the statement ran longer than the statement timeout and was cancelled (\(message))")
        case "55P03": return .init(kind: .busy, message: message)
        case "53100": return .init(kind: .storageFull, message: message)
        // Too many connections: the database is there but not serving. (A server shutting down or starting, 57P01 to
        // 57P03, ended the session: a lost connection, above.)
        case "53300": return .init(kind: .unavailable, message: message)
        default: return .init(kind: .other, message: message)
        }
    }

    /// Whether a connection may serve again after `error`: not when it is gone, nor when its prepared statements may be
    /// stale. PostgresNIO keeps a statement whose preparation failed (in a transaction an earlier error aborted, say)
    /// failed for the connection's life, and PostgreSQL refuses to run a statement prepared before a migration changed
    /// its result's columns (0A000); a new connection prepares them again.
    private static func isReusable(after error: any Error) -> Bool {
        guard !isLostConnection(error) else { return false }
        guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return true }
        return !(state == "0A000" || state == "25P02" || state == "26000" || state.hasPrefix("42"))
    }

    private static func isLostConnection(_ error: any Error) -> Bool {
        if error is PostgresConnectionClosed { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return true
        default:
            // 08: connection exceptions; 57P01 to 57P03: the server ended the session (a shutdown, a crash, a start).
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        }
    }

    /// PSQLError's own description hides the server's words; this shows them (never bind values).
    static func message(of error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let server = error.serverInfo, let message = server[.message] {
            return "PostgreSQL: \(message) (SQLSTATE \(server[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }

    var skipLockedClause: String { " FOR UPDATE SKIP LOCKED" }
    var rowLockClause: String { " FOR UPDATE" }
    /// A third of the pool each: a batch's time is mostly round trips to the server, which batches side by side
    /// overlap; the three kinds at their most still queue for the pool rather than fail.
    var concurrentWriters: Int { max(1, pool.size / 3) }

    /// Autovacuum analyzes a table up to a minute after it grew; until then the planner may take 100,000 fresh push
    /// jobs for a handful and sort them all for every claim instead of reading the index in order. `SKIP_LOCKED`: when
    /// autovacuum or another instance is analyzing the table already, the write does not wait for it. `ANALYZE` by a
    /// role that does not own the table only warns.
    func statisticsRefresh(of table: String) -> SQLQueryString? { "ANALYZE (SKIP_LOCKED) \(ident: table)" }

    /// Instances starting together take turns at migrating; the lock is per schema and ends with the transaction.
    var migrationLock: SQLQueryString? { "SELECT pg_advisory_xact_lock(hashtext('ordertrack migrations ' || current_schema()))" }

    func shutdown() async throws {
        await closePools()
    }

    private func closePools() async {
        await pool.shutdown()
        await claimPool?.shutdown()
    }
}
