import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SQLite through sqlite-nio: one writer connection and a few reader connections in WAL mode.
///
/// Writes go through the single writer connection one transaction at a time, each opened with
/// `BEGIN IMMEDIATE` so that another process writing the same file makes it wait (busy timeout)
/// instead of failing mid-transaction. WAL lets readers run while a write is in progress.
final class SQLiteBackend: SQLStoreBackend {
    private let writer: ConnectionPool<SQLiteConnection>
    /// The same pool as `writer` for an in-memory database, which cannot be shared by connections.
    private let readers: ConnectionPool<SQLiteConnection>
    private let threadPool: NIOThreadPool
    private let sharesWriter: Bool
    private let clock: any Clock<Duration>

    /// How long a connection waits for another process's lock before failing.
    static let busyTimeoutMilliseconds = 10_000

    private init(
        writer: ConnectionPool<SQLiteConnection>, readers: ConnectionPool<SQLiteConnection>?, threadPool: NIOThreadPool, clock: any Clock<Duration>
    ) {
        self.writer = writer
        self.clock = clock
        self.readers = readers ?? writer
        self.sharesWriter = readers == nil
        self.threadPool = threadPool
    }

    /// Opens the database file (created if missing) with `readerCount` reader connections.
    static func open(path: String, readerCount: Int, logger: Logger, clock: any Clock<Duration>) async throws -> SQLiteBackend {
        restrictDatabasePermissions(path)
        let threadPool = NIOThreadPool(numberOfThreads: readerCount + 1)
        threadPool.start()
        var opened: [SQLiteConnection] = []
        do {
            let writer = try await openConnection(.file(path: path), threadPool: threadPool, logger: logger)
            opened.append(writer)
            // Persistent in the file; must run outside a transaction. It answers with the mode now in force.
            let mode = try await writer.query("PRAGMA journal_mode = WAL").first?.column("journal_mode")?.string
            guard mode?.lowercased() == "wal" else {
                throw OrderStoreError.openFailed(
                    path: path, reason: "SQLite refused WAL journal mode (got \(mode ?? "nothing")); put the database on a local file system")
            }
            // In WAL mode NORMAL never corrupts the database; a power loss may drop only the last commits.
            _ = try await writer.query("PRAGMA synchronous = NORMAL")
            var readers: [SQLiteConnection] = []
            for _ in 0..<readerCount {
                let reader = try await openConnection(.file(path: path), threadPool: threadPool, logger: logger)
                opened.append(reader)
                readers.append(reader)
            }
            return SQLiteBackend(
                writer: ConnectionPool(connections: [writer], clock: clock),
                readers: ConnectionPool(connections: readers, clock: clock),
                threadPool: threadPool,
                clock: clock
            )
        } catch {
            await closeAll(opened)
            try? await threadPool.shutdownGracefully()
            if let error = error as? OrderStoreError { throw error }
            throw OrderStoreError.openFailed(path: path, reason: String(describing: error))
        }
    }

    /// Opens a private in-memory database on one connection, for tests and throwaway runs.
    static func openInMemory(logger: Logger, clock: any Clock<Duration>) async throws -> SQLiteBackend {
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        do {
            let connection = try await openConnection(.memory, threadPool: threadPool, logger: logger)
            return SQLiteBackend(writer: ConnectionPool(connections: [connection], clock: clock), readers: nil, threadPool: threadPool, clock: clock)
        } catch {
            try? await threadPool.shutdownGracefully()
            throw OrderStoreError.openFailed(path: ":memory:", reason: String(describing: error))
        }
    }

    private static func openConnection(
        _ storage: SQLiteConnection.Storage,
        threadPool: NIOThreadPool,
        logger: Logger
    ) async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(
            storage: storage,
            threadPool: threadPool,
            logger: logger,
            on: MultiThreadedEventLoopGroup.singleton.any()
        )
        do {
            // Per connection. busy_timeout replaces sqlite-nio's busy handler, which retries without sleeping.
            _ = try await connection.query("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
            _ = try await connection.query("PRAGMA foreign_keys = ON")
            return connection
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private static func closeAll(_ connections: [SQLiteConnection]) async {
        for connection in connections {
            try? await connection.close()
        }
    }

    func withWriteTransaction<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withWriter { connection in
            try await Self.control("BEGIN IMMEDIATE", on: connection)
            do {
                let result = try await body(connection.sql(queryLogLevel: .trace))
                try await Self.control("COMMIT", on: connection)
                return result
            } catch {
                try? await Self.control("ROLLBACK", on: connection)
                throw error
            }
        }
    }

    func withSingleStatementWrite<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withWriter { connection in try await body(connection.sql(queryLogLevel: .trace)) }
    }

    /// The writer, with SQLite's busy wait counted from when the caller asked for it. While another process holds the
    /// lock, each queued writer would otherwise wait its full busy timeout in turn, and a request queued behind a
    /// background write (a push claim, say) would answer after two of them instead of one.
    private func withWriter<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let sinceAsked = clock.stopwatch()
        return try await writer.withConnection { connection in
            let waited = sinceAsked()
            // Short queue waits are the normal case and cost no statement.
            guard waited > .milliseconds(100) else { return try await body(connection) }
            let remaining = max(0, Self.busyTimeoutMilliseconds - Int(waited / .milliseconds(1)))
            try await Self.control("PRAGMA busy_timeout = \(remaining)", on: connection)
            do {
                let result = try await body(connection)
                try await Self.control("PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)", on: connection)
                return result
            } catch {
                try? await Self.control("PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)", on: connection)
                throw error
            }
        }
    }

    /// Runs a transaction-control statement even when the calling task is cancelled. sqlite-nio's async queries give
    /// up on cancellation before they start (NIOThreadPool.runIfActive), so a request cancelled inside a transaction
    /// would skip its ROLLBACK and hand the single writer back with the transaction still open; the future-based
    /// query always runs.
    private static func control(_ statement: String, on connection: SQLiteConnection) async throws {
        let done: EventLoopFuture<[SQLiteRow]> = connection.query(statement, [])
        _ = try await done.get()
    }

    func withReader<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await readers.withConnection { connection in
            try await body(connection.sql(queryLogLevel: .trace))
        }
    }

    func describe(_ error: any Error) -> BackendErrorDescription {
        guard let error = error as? SQLiteError else {
            return .init(kind: .other, message: String(describing: error))
        }
        switch error.reason {
        case .constraintUniqueFailed, .constraintPrimaryKeyFailed:
            return .init(kind: .uniqueViolation, message: error.message)
        case .constraintForeignKeyFailed:
            return .init(kind: .foreignKeyViolation, message: error.message)
        case .busy, .busyTimeout, .busyInRecovery, .busyInSnapshot, .locked, .lockedBySharedCache, .lockedVirtualTable:
            return .init(kind: .busy, message: "SQLite: \(error.message)")
        case .full:
            return .init(kind: .storageFull, message: "SQLite: \(error.message)")
        default:
            return .init(kind: .other, message: "SQLite: \(error.message)")
        }
    }

    /// SQLite runs one writer at a time, so claims never overlap.
    var skipLockedClause: String { "" }
    var rowLockClause: String { "" }

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
        await Self.closeAll(connections)
        try await threadPool.shutdownGracefully()
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
