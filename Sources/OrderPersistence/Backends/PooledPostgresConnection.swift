import Logging
import NIOCore
import PostgresKit
import Synchronization

/// A pooled PostgreSQL connection whose statements fail once it closes.
///
/// PostgresNIO writes a statement to its channel without a promise, so a statement sent on a connection that has just
/// closed (PostgreSQL restarted between the lease's `isClosed` check and the write) is never answered: its
/// transaction, and every order update queued behind it in the group commit, would wait forever. Each statement is
/// registered here while it runs, and one callback on the connection's close fails them all.
final class PooledPostgresConnection: Sendable {
    let connection: PostgresConnection
    private let pending = Mutex(Pending())

    private struct Pending {
        var promises: [Int: EventLoopPromise<Void>] = [:]
        var nextID = 0
        var closed = false
    }

    init(_ connection: PostgresConnection) {
        self.connection = connection
        connection.closeFuture.whenComplete { _ in
            let promises = self.pending.withLock { pending in
                pending.closed = true
                defer { pending.promises = [:] }
                return pending.promises.values
            }
            for promise in promises { promise.fail(PostgresConnectionClosed()) }
        }
    }

    var isClosed: Bool { connection.isClosed }

    func close() async throws { try await connection.close() }

    /// The connection as SQLKit's database, each statement guarded; with `preparing`, the statements that repeat run
    /// prepared (``PostgresStatementCache``).
    func sql(preparing: Bool) -> any SQLDatabase {
        GuardedDatabase(base: connection.sql(queryLogLevel: .trace), connection: self, preparing: preparing)
    }

    /// Runs `statement`; its answer, or a failure as soon as the connection closes, whichever comes first.
    fileprivate func guarded(_ statement: () -> EventLoopFuture<Void>, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        let id = pending.withLock { pending -> Int? in
            guard !pending.closed else { return nil }
            pending.nextID += 1
            pending.promises[pending.nextID] = promise
            return pending.nextID
        }
        guard let id else {
            promise.fail(PostgresConnectionClosed())
            return promise.futureResult
        }
        statement().whenComplete { result in
            _ = self.pending.withLock { $0.promises.removeValue(forKey: id) }
            promise.completeWith(result) // a no-op when the close failed it first
        }
        return promise.futureResult
    }
}

/// The connection closed while a statement was on its way or waiting for its answer.
struct PostgresConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the connection to PostgreSQL closed before the statement was answered" }
}

private struct GuardedDatabase: SQLDatabase {
    let base: any SQLDatabase
    let connection: PooledPostgresConnection
    let preparing: Bool

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        guard preparing else { return connection.guarded({ base.execute(sql: query, onRow) }, on: base.eventLoop) }
        let (sql, binds) = serialize(query)
        // Binds only PostgresKit's slower encodings take (arrays through `Encodable`, JSON) go its way.
        guard let (bindings, types) = try? PostgresStatementCache.bindings(binds) else {
            return connection.guarded({ base.execute(sql: query, onRow) }, on: base.eventLoop)
        }
        if logger.logLevel <= .trace {
            logger.trace("Executing query", metadata: ["sql": .string(sql), "binds": .array(binds.map { .string("\($0)") })])
        }
        let postgres = connection.connection
        let rows: @Sendable (PostgresRow) -> Void = { onRow(PostgresStoreRow($0)) }
        guard let entry = PostgresStatementCache.shared.entry(for: .init(sql: sql, types: types)) else {
            return connection.guarded(
                { postgres.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: postgres.logger, rows).map { _ in } }, on: base.eventLoop)
        }
        return connection.guarded(
            { base.eventLoop.makeFutureWithTask { try await postgres.execute(slot: entry.slot, bindings: bindings, logger: postgres.logger, rows) } },
            on: base.eventLoop)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await execute(sql: query, onRow).get()
    }
}
