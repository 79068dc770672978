import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Up to `size` PostgreSQL connections, opened on demand and replaced when they die.
///
/// Why not PostgresNIO's `PostgresClient`: its pool keeps callers waiting up to a minute while the database is
/// unreachable (https://github.com/vapor/postgres-nio/issues/489, and `query()` does not fail on the connect timeout,
/// https://github.com/vapor/postgres-nio/issues/574). Here a lease that finds no live connection opens one itself and
/// fails within the connect timeout, so the server can answer 503 at once and recover as soon as the database is back.
/// Replace this pool with `PostgresClient` once both issues are fixed (`DatabaseOutageTests` checks the behaviour).
/// A lock rather than an actor: leasing an idle connection then costs no hop to another executor, which matters when
/// every device request makes one short query.
final class PostgresConnectionPool: Sendable {
    private struct State {
        var idle: [PooledPostgresConnection] = []
        /// Connections open, being opened, or leased.
        var open = 0
        var nextID = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextWaiterID = 0
        var expiredEarly = LeaseDeadline.EarlyExpiries()
        var closed = false
        var drainWaiter: CheckedContinuation<Void, Never>?

        var canLease: Bool { !idle.isEmpty || closed }
    }

    private enum Step {
        case use(PooledPostgresConnection)
        case connect(id: Int)
        case wait
    }

    let configuration: PostgresConnection.Configuration
    let size: Int
    private let logger: Logger
    /// Bounds of the queue for a connection: past them a caller gets ``OrderStoreError/busy(operation:reason:)``.
    private let maximumWait: Duration
    private let maximumWaiters: Int
    /// The clock the waits for a connection run out on.
    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    init(
        configuration: PostgresConnection.Configuration, size: Int, logger: Logger, maximumWait: Duration = .seconds(15), maximumWaiters: Int = 1000,
        clock: any Clock<Duration>
    ) {
        self.clock = clock
        self.configuration = configuration
        self.size = size
        self.logger = logger
        self.maximumWait = maximumWait
        self.maximumWaiters = maximumWaiters
    }

    /// A live connection: an idle one, a new one if below `size`, or the next one released.
    func lease() async throws -> PooledPostgresConnection {
        while true {
            let step = try state.withLock { state throws -> Step in
                guard !state.closed else { throw OrderStoreError.storeClosed }
                while let connection = state.idle.popLast() {
                    if !connection.isClosed { return .use(connection) }
                    state.open -= 1
                }
                guard state.open < size else { return .wait }
                state.open += 1
                state.nextID += 1
                return .connect(id: state.nextID)
            }
            switch step {
            case .use(let connection):
                return connection
            case .connect(let id):
                do {
                    return PooledPostgresConnection(try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger))
                } catch {
                    state.withLock { $0.open -= 1 }
                    wakeOne()
                    throw PostgresUnreachable(underlying: error)
                }
            case .wait:
                let id = try state.withLock { state throws -> Int in
                    guard state.waiters.count < maximumWaiters else { throw LeaseDeadline.queueFull(state.waiters.count) }
                    state.nextWaiterID += 1
                    state.expiredEarly.allocate(state.nextWaiterID)
                    return state.nextWaiterID
                }
                try await LeaseDeadline.run(timeout: maximumWait, clock: clock) {
                    try await self.wait(id: id)
                } expire: { error in
                    self.expire(id: id, with: error)
                }
            }
        }
    }

    /// Returns a leased connection; one in an unknown state (a failed rollback, a lost link) is closed instead.
    func release(_ connection: PooledPostgresConnection, reusable: Bool) async {
        let keep =
            reusable && !connection.isClosed
            && state.withLock { state in
                guard !state.closed else { return false }
                state.idle.append(connection)
                return true
            }
        if !keep {
            try? await connection.close()
            let drained = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.open -= 1
                guard state.closed, state.open == 0 else { return nil }
                defer { state.drainWaiter = nil }
                return state.drainWaiter
            }
            drained?.resume()
        }
        wakeOne()
    }

    private func wait(id: Int) async throws {
        try await withCheckedThrowingContinuation { continuation in
            // Re-checked under the lock: a connection released since the decision to wait must not be missed.
            let ready = state.withLock { state -> Result<Bool, any Error> in
                do { try state.expiredEarly.join(id) } catch { return .failure(error) }
                if state.canLease || state.open < size { return .success(true) }
                state.waiters.append((id, continuation))
                return .success(false)
            }
            switch ready {
            case .success(true): continuation.resume()
            case .success(false): break
            case .failure(let error): continuation.resume(throwing: error)
            }
        }
    }

    private func expire(id: Int, with error: any Error) {
        let waiter = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expiredEarly.expire(id, with: error)
                return nil as CheckedContinuation<Void, any Error>?
            }
            return state.waiters.remove(at: index).continuation
        }
        waiter?.resume(throwing: error)
    }

    private func wakeOne() {
        let waiter = state.withLock { state in state.waiters.isEmpty ? nil : state.waiters.removeFirst().continuation }
        waiter?.resume()
    }

    /// Refuses new leases, closes idle connections and waits until the leased ones come back.
    func shutdown() async {
        let taken = state.withLock { state -> ([(id: Int, continuation: CheckedContinuation<Void, any Error>)], [PooledPostgresConnection])? in
            guard !state.closed else { return nil }
            state.closed = true
            defer {
                state.waiters = []
                state.idle = []
            }
            state.open -= state.idle.count
            return (state.waiters, state.idle)
        }
        guard let (waiters, idle) = taken else { return } // already shut down
        for waiter in waiters { waiter.continuation.resume(throwing: OrderStoreError.storeClosed) }
        for connection in idle { try? await connection.close() }
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.open <= 0 { return true }
                state.drainWaiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Runs `body` with a leased connection; `reusable` decides from the error whether the connection may be kept.
    func withConnection<T: Sendable>(
        _ body: (PooledPostgresConnection) async throws -> T, reusableAfter reusable: (any Error) -> Bool
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
