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

    /// The connection as SQLKit's database, each statement guarded.
    func sql() -> any SQLDatabase {
        GuardedDatabase(base: connection.sql(queryLogLevel: .trace), connection: self)
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

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        connection.guarded({ base.execute(sql: query, onRow) }, on: base.eventLoop)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await execute(sql: query, onRow).get()
    }
}
