import Synchronization

/// A fixed set of connections leased one task at a time, in FIFO order of requests.
///
/// A pool of one connection serializes its users, which is how SQLite writers avoid `SQLITE_BUSY`. The queue is
/// bounded in length and in time: past `maximumWaiters`, or after `maximumWait` in the queue, a caller gets
/// ``OrderStoreError/busy(operation:reason:)`` (503 with `Retry-After` at the HTTP edge) instead of waiting on.
///
/// A lock rather than an actor, as ``PostgresConnectionPool`` is: leasing an idle connection and giving it back then
/// cost no hop to the actor's executor. A support lookup makes two short reads, four hops with an actor; under 16
/// concurrent lookups the actor was often busy, and the thread switches of those hops cost more than the reads.
final class ConnectionPool<Connection: Sendable>: Sendable {
    private struct State {
        var idle: [Connection]
        var waiters: [(id: Int, continuation: CheckedContinuation<Connection, any Error>)] = []
        var nextWaiterID = 0
        /// Waiters whose deadline came before they joined the queue (a starved task): their error, for when they join.
        var expiredEarly = LeaseDeadline.EarlyExpiries()
        var closed = false
        var drainWaiter: CheckedContinuation<[Connection], Never>?
        var drained = false
        /// Callers of ``waitUntilWaiting(_:)``, resumed by the waiter that makes their count.
        var queueWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private enum Lease {
        case idle(Connection)
        case wait(id: Int)
    }

    /// What a release does after the lock: hand the connection to a waiter, end a drain, or nothing more.
    private enum Release {
        case handOver(CheckedContinuation<Connection, any Error>)
        case drained(CheckedContinuation<[Connection], Never>, [Connection])
        case kept
    }

    private let total: Int
    private let maximumWait: Duration
    private let maximumWaiters: Int
    private let clock: any Clock<Duration>
    private let state: Mutex<State>

    /// - Parameter clock: measures `maximumWait`; tests move a manual one.
    init(connections: [Connection], maximumWait: Duration = .seconds(15), maximumWaiters: Int = 1000, clock: any Clock<Duration>) {
        self.total = connections.count
        self.maximumWait = maximumWait
        self.maximumWaiters = maximumWaiters
        self.clock = clock
        self.state = Mutex(State(idle: connections))
    }

    /// How many callers wait for a connection now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Returns once at least `count` callers wait for a connection: a test knows a caller has joined the queue without
    /// polling (its deadline's sleep on the test clock comes before it joins).
    func waitUntilWaiting(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state in
                guard state.waiters.count < count else { return true }
                state.queueWatchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Leases a connection, waiting for one if all are in use.
    func acquire() async throws -> Connection {
        let leased = try state.withLock { state throws -> Lease in
            guard !state.closed else { throw OrderStoreError.storeClosed }
            if let connection = state.idle.popLast() { return .idle(connection) }
            guard state.waiters.count < maximumWaiters else { throw LeaseDeadline.queueFull(state.waiters.count) }
            state.nextWaiterID += 1
            state.expiredEarly.allocate(state.nextWaiterID)
            return .wait(id: state.nextWaiterID)
        }
        switch leased {
        case .idle(let connection):
            return connection
        case .wait(let id):
            return try await LeaseDeadline.run(timeout: maximumWait, clock: clock) {
                try await self.wait(id: id)
            } expire: { error in
                self.expire(id: id, with: error)
            }
        }
    }

    private func wait(id: Int) async throws -> Connection {
        try await withCheckedThrowingContinuation { continuation in
            // Re-checked under the lock: a connection released since the decision to wait found nobody queued, and
            // waiting now would strand the caller beside an idle connection until its deadline.
            let (now, watchers) = state.withLock { state -> (Result<Connection, any Error>?, [CheckedContinuation<Void, Never>]) in
                do { try state.expiredEarly.join(id) } catch { return (.failure(error), []) }
                guard !state.closed else { return (.failure(OrderStoreError.storeClosed), []) }
                if let connection = state.idle.popLast() { return (.success(connection), []) }
                state.waiters.append((id, continuation))
                let joined = state.waiters.count
                defer { state.queueWatchers.removeAll { $0.count <= joined } }
                return (nil, state.queueWatchers.filter { $0.count <= joined }.map(\.continuation))
            }
            // Resumed after the lock, as every other continuation of the pool is.
            for watcher in watchers { watcher.resume() }
            if let now { continuation.resume(with: now) }
        }
    }

    private func expire(id: Int, with error: any Error) {
        let waiter = state.withLock { state -> CheckedContinuation<Connection, any Error>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expiredEarly.expire(id, with: error)
                return nil
            }
            return state.waiters.remove(at: index).continuation
        }
        waiter?.resume(throwing: error)
    }

    /// Returns a leased connection: to the first waiter, or to the idle ones.
    func release(_ connection: Connection) {
        let next = state.withLock { state -> Release in
            if !state.closed, !state.waiters.isEmpty { return .handOver(state.waiters.removeFirst().continuation) }
            state.idle.append(connection)
            guard state.closed, state.idle.count == total, let drainWaiter = state.drainWaiter else { return .kept }
            state.drainWaiter = nil
            defer { state.idle = [] }
            return .drained(drainWaiter, state.idle)
        }
        switch next {
        case .handOver(let waiter): waiter.resume(returning: connection)
        case .drained(let waiter, let connections): waiter.resume(returning: connections)
        case .kept: break
        }
    }

    /// Refuses new leases, fails queued ones, waits until every connection is back and returns them all.
    func drain() async -> [Connection] {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> (waiters: [CheckedContinuation<Connection, any Error>], connections: [Connection]?) in
                guard !state.drained else { return ([], []) }
                state.drained = true
                state.closed = true
                let waiters = state.waiters.map(\.continuation)
                state.waiters = []
                guard state.idle.count == total else {
                    state.drainWaiter = continuation
                    return (waiters, nil)
                }
                defer { state.idle = [] }
                return (waiters, state.idle)
            }
            for waiter in now.waiters { waiter.resume(throwing: OrderStoreError.storeClosed) }
            if let connections = now.connections { continuation.resume(returning: connections) }
        }
    }

    /// Runs `body` with a leased connection and always returns it.
    func withConnection<T: Sendable>(_ body: (Connection) async throws -> T) async throws -> T {
        let connection = try await acquire()
        do {
            let result = try await body(connection)
            release(connection)
            return result
        } catch {
            release(connection)
            throw error
        }
    }
}
