import Logging
import NIOCore
import PostgresNIO

/// Up to `size` PostgreSQL connections, opened on demand and replaced when they die.
///
/// Why not PostgresNIO's `PostgresClient`: its pool keeps callers waiting up to a minute while the database is
/// unreachable. Here a lease that finds no live connection opens one itself and fails within the connect timeout,
/// so the server can answer 503 at once and recover as soon as the database is back.
actor PostgresConnectionPool {
    private let configuration: PostgresConnection.Configuration
    private let size: Int
    private let logger: Logger
    private var idle: [PostgresConnection] = []
    /// Connections open, being opened, or leased.
    private var open = 0
    private var nextID = 0
    private var waiters: [CheckedContinuation<Void, any Error>] = []
    private var closed = false
    private var drainWaiter: CheckedContinuation<Void, Never>?

    init(configuration: PostgresConnection.Configuration, size: Int, logger: Logger) {
        self.configuration = configuration
        self.size = size
        self.logger = logger
    }

    /// A live connection: an idle one, a new one if below `size`, or the next one released.
    func lease() async throws -> PostgresConnection {
        while true {
            guard !closed else { throw OrderStoreError.storeClosed }
            if let connection = idle.popLast() {
                if !connection.isClosed { return connection }
                open -= 1
                continue
            }
            if open < size {
                open += 1
                nextID += 1
                do {
                    return try await PostgresConnection.connect(configuration: configuration, id: nextID, logger: logger)
                } catch {
                    open -= 1
                    wakeOne()
                    throw PostgresUnreachable(underlying: error)
                }
            }
            try await withCheckedThrowingContinuation { waiters.append($0) }
        }
    }

    /// Returns a leased connection; one in an unknown state (a failed rollback, a lost link) is closed instead.
    func release(_ connection: PostgresConnection, reusable: Bool) async {
        if closed || !reusable || connection.isClosed {
            open -= 1
            try? await connection.close()
        } else {
            idle.append(connection)
        }
        wakeOne()
        if closed, open == 0, let drainWaiter {
            self.drainWaiter = nil
            drainWaiter.resume()
        }
    }

    private func wakeOne() {
        if !waiters.isEmpty { waiters.removeFirst().resume() }
    }

    /// Refuses new leases, closes idle connections and waits until the leased ones come back.
    func shutdown() async {
        guard !closed else { return }
        closed = true
        for waiter in waiters { waiter.resume(throwing: OrderStoreError.storeClosed) }
        waiters = []
        let closing = idle
        idle = []
        open -= closing.count
        for connection in closing { try? await connection.close() }
        if open > 0 { await withCheckedContinuation { drainWaiter = $0 } }
    }

    /// Runs `body` with a leased connection; `reusable` decides from the error whether the connection may be kept.
    nonisolated func withConnection<T: Sendable>(
        _ body: (PostgresConnection) async throws -> T, reusableAfter reusable: (any Error) -> Bool
    ) async throws -> T {
        let connection = try await lease()
        do {
            let result = try await body(connection)
            await release(connection, reusable: true)
            return result
        } catch {
            await release(connection, reusable: reusable(error))
            throw error
        }
    }
}

/// Opening a connection failed: the database is down, unreachable, or refusing connections.
struct PostgresUnreachable: Error, CustomStringConvertible {
    var underlying: any Error

    var description: String { "cannot connect to PostgreSQL: \(PostgresBackend.message(of: underlying))" }
}
