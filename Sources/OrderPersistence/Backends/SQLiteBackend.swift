import Foundation
import Logging
import SQLKit
import VaporCSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SQLite: one writer connection and a few reader connections in WAL mode, each driven on a thread of its own
/// (``SQLiteDirectConnection``).
///
/// Writes go through the single writer connection one transaction at a time, each opened with
/// `BEGIN IMMEDIATE` so that another process writing the same file makes it wait (busy timeout)
/// instead of failing mid-transaction. WAL lets readers run while a write is in progress.
///
/// A write, or a read that may visit many rows, runs its body with the connection's thread as the task's executor: the
/// body's statements are plain calls there, and a statement waiting on another process's lock, or a long scan, blocks
/// that thread, never Swift's shared pool. A read of a few rows by index runs on the calling thread
/// (``ReadExtent/rows``).
final class SQLiteBackend: SQLStoreBackend {
    private let writer: ConnectionPool<SQLiteDirectConnection>
    /// The same pool as `writer` for an in-memory database, which cannot be shared by connections.
    private let readers: ConnectionPool<SQLiteDirectConnection>
    private let sharesWriter: Bool
    private let clock: any Clock<Duration>
    private let logger: Logger

    /// How long a connection waits for another process's lock before failing.
    static let busyTimeoutMilliseconds = 10_000

    private init(
        writer: ConnectionPool<SQLiteDirectConnection>, readers: ConnectionPool<SQLiteDirectConnection>?, logger: Logger,
        clock: any Clock<Duration>
    ) {
        self.writer = writer
        self.clock = clock
        self.logger = logger
        self.readers = readers ?? writer
        self.sharesWriter = readers == nil
    }

    /// Opens the database file (created if missing) with `readerCount` reader connections.
    static func open(path: String, readerCount: Int, logger: Logger, clock: any Clock<Duration>) async throws -> SQLiteBackend {
        restrictDatabasePermissions(path)
        var opened: [SQLiteDirectConnection] = []
        do {
            let writer = try await openConnection(path: path, name: "sqlite-writer")
            opened.append(writer)
            try await withTaskExecutorPreference(writer.thread) {
                // Persistent in the file; must run outside a transaction. It answers with the mode now in force.
                var mode: String?
                try writer.execute("PRAGMA journal_mode = WAL") { mode = $0.values.first?.string }
                guard mode?.lowercased() == "wal" else {
                    throw OrderStoreError.openFailed(
                        path: path, reason: "SQLite refused WAL journal mode (got \(mode ?? "nothing")); put the database on a local file system")
                }
                // In WAL mode NORMAL never corrupts the database; a power loss may drop only the last commits.
                try writer.execute("PRAGMA synchronous = NORMAL")
            }
            var readers: [SQLiteDirectConnection] = []
            for index in 0..<readerCount {
                let reader = try await openConnection(path: path, name: "sqlite-reader-\(index)")
                opened.append(reader)
                readers.append(reader)
            }
            return SQLiteBackend(
                writer: ConnectionPool(connections: [writer], clock: clock),
                readers: ConnectionPool(connections: readers, clock: clock),
                logger: logger,
                clock: clock
            )
        } catch {
            for connection in opened { await connection.close() }
            if let error = error as? OrderStoreError { throw error }
            throw OrderStoreError.openFailed(path: path, reason: String(describing: error))
        }
    }

    /// Opens a private in-memory database on one connection, for tests and throwaway runs.
    static func openInMemory(logger: Logger, clock: any Clock<Duration>) async throws -> SQLiteBackend {
        do {
            let connection = try await openConnection(path: ":memory:", name: "sqlite-memory")
            return SQLiteBackend(writer: ConnectionPool(connections: [connection], clock: clock), readers: nil, logger: logger, clock: clock)
        } catch {
            throw OrderStoreError.openFailed(path: ":memory:", reason: String(describing: error))
        }
    }

    private static func openConnection(path: String, name: String) async throws -> SQLiteDirectConnection {
        let connection = try await SQLiteDirectConnection.open(path: path, name: name)
        do {
            try await withTaskExecutorPreference(connection.thread) {
                try connection.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
                try connection.execute("PRAGMA foreign_keys = ON")
            }
            return connection
        } catch {
            await connection.close()
            throw error
        }
    }

    func withWriteTransaction<T: Sendable>(preparing: Bool, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withWriter { connection in
            // Transaction control ignores the task's cancellation: a cancelled request still rolls back before the
            // writer is handed on.
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let result = try await body(SQLiteDirectDatabase(connection: connection, logger: logger))
                try connection.execute("COMMIT")
                return result
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    func withSingleStatementWrite<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withWriter { connection in try await body(SQLiteDirectDatabase(connection: connection, logger: logger)) }
    }

    /// The writer, with SQLite's busy wait counted from when the caller asked for it. While another process holds the
    /// lock, each queued writer would otherwise wait its full busy timeout in turn, and a request queued behind a
    /// background write (a push claim, say) would answer after two of them instead of one.
    private func withWriter<T: Sendable>(_ body: (SQLiteDirectConnection) async throws -> T) async throws -> T {
        let sinceAsked = clock.stopwatch()
        return try await writer.withConnection { connection in
            try await withTaskExecutorPreference(connection.thread) {
                let waited = sinceAsked()
                // Short queue waits are the normal case and cost no statement.
                guard waited > .milliseconds(100) else { return try await body(connection) }
                let remaining = max(0, Self.busyTimeoutMilliseconds - Int(waited / .milliseconds(1)))
                try connection.execute("PRAGMA busy_timeout = \(remaining)")
                defer { try? connection.execute("PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)") }
                return try await body(connection)
            }
        }
    }

    func withReader<T: Sendable>(_ extent: ReadExtent, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await readers.withConnection { connection in
            let database = SQLiteDirectDatabase(connection: connection, logger: logger)
            switch extent {
            // A reader in WAL mode waits for no other connection's lock, so the calling thread is not held waiting.
            case .rows: return try await body(database)
            case .scan: return try await withTaskExecutorPreference(connection.thread) { try await body(database) }
            }
        }
    }

    func describe(_ error: any Error) -> BackendErrorDescription {
        guard let error = error as? SQLiteEngineError else {
            return .init(kind: .other, message: String(describing: error))
        }
        switch (error.code, error.primaryCode) {
        case (SQLiteEngineError.constraintUnique, _), (SQLiteEngineError.constraintPrimaryKey, _):
            return .init(kind: .uniqueViolation, message: error.message)
        case (SQLiteEngineError.constraintForeignKey, _):
            return .init(kind: .foreignKeyViolation, message: error.message)
        case (_, SQLITE_BUSY), (_, SQLITE_LOCKED):
            return .init(kind: .busy, message: "SQLite: \(error.message)")
        case (_, SQLITE_FULL):
            return .init(kind: .storageFull, message: "SQLite: \(error.message)")
        default:
            return .init(kind: .other, message: "SQLite: \(error.message)")
        }
    }

    /// SQLite runs one writer at a time, so claims never overlap.
    var skipLockedClause: String { "" }
    var rowLockClause: String { "" }
    var concurrentWriters: Int { 1 }

    /// SQLite's planner reads the queue's index in order whatever its statistics.
    func withQueueClaim<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withSingleStatementWrite(body)
    }

    /// `BEGIN IMMEDIATE` already makes writers, and so migrations, take turns.
    var migrationLock: SQLQueryString? { nil }

    /// SQLite's indexes end in the rowid, so the outbox's claims read in index order whatever a table's size.
    func statisticsRefresh(of table: String) -> SQLQueryString? { nil }

    func shutdown() async throws {
        var connections = await writer.drain()
        guard !connections.isEmpty else { return } // already shut down
        if !sharesWriter {
            connections += await readers.drain()
        }
        for connection in connections { await connection.close() }
    }
}

extension SQLiteBackend {
    /// This process is SQLite's only writer: every change is its own, so there is nothing to hear from others.
    func followChanges(_ report: @escaping @Sendable (StoreChangeEvent) async -> Void) async throws {
        await report(.following)
        // Nothing to wait for but the cancellation that ends following.
        let (never, keeper) = AsyncStream<Never>.makeStream()
        for await _ in never {}
        keeper.finish()
    }
}

/// Makes the database readable by its owner only, whatever the umask: a missing file is created empty with mode
/// 0600 (SQLite gives its `-wal` and `-shm` files the database file's mode), and an existing file and companions
/// written by an older version with the umask's mode are narrowed to 0600. Failures are left to SQLite's open to
/// report.
func restrictDatabasePermissions(_ path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    if descriptor >= 0 {
        close(descriptor)
        return
    }
    for file in [path, path + "-wal", path + "-shm"] {
        var status = stat()
        if stat(file, &status) == 0, status.st_mode & 0o077 != 0 { chmod(file, 0o600) }
    }
}

extension Clock where Duration == Swift.Duration {
    /// A reading of the time passed since the call, on this clock.
    func stopwatch() -> @Sendable () -> Duration {
        let start = now
        return { start.duration(to: self.now) }
    }
}
