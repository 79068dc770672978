/// A fixed set of connections leased one task at a time, in FIFO order of requests.
///
/// A pool of one connection serializes its users, which is how SQLite writers avoid `SQLITE_BUSY`. The queue is
/// bounded in length and in time: past `maximumWaiters`, or after `maximumWait` in the queue, a caller gets
/// ``OrderStoreError/busy(operation:reason:)`` (503 with `Retry-After` at the HTTP edge) instead of waiting on.
actor ConnectionPool<Connection: Sendable> {
    private let total: Int
    private let maximumWait: Duration
    private let maximumWaiters: Int
    private var idle: [Connection]
    private var waiters: [(id: Int, continuation: CheckedContinuation<Connection, any Error>)] = []
    private var nextWaiterID = 0
    /// Waiters whose deadline came before they joined the queue (a starved task): their error, for when they join.
    private var expiredEarly = LeaseDeadline.EarlyExpiries()
    private var closed = false
    private var drainWaiter: CheckedContinuation<Void, Never>?
    private var drained = false

    private let clock: any Clock<Duration>

    /// - Parameter clock: measures `maximumWait`; tests move a manual one.
    init(connections: [Connection], maximumWait: Duration = .seconds(15), maximumWaiters: Int = 1000, clock: any Clock<Duration>) {
        self.total = connections.count
        self.idle = connections
        self.maximumWait = maximumWait
        self.maximumWaiters = maximumWaiters
        self.clock = clock
    }

    /// How many callers wait for a connection now.
    var waiting: Int { waiters.count }

    /// Callers of ``waitUntilWaiting(_:)``, resumed by the waiter that makes their count: a test knows a caller has
    /// joined the queue without polling (its deadline's sleep on the test clock comes before it joins).
    private var queueWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Returns once at least `count` callers wait for a connection.
    func waitUntilWaiting(_ count: Int) async {
        guard waiters.count < count else { return }
        await withCheckedContinuation { queueWatchers.append((count, $0)) }
    }

    /// Leases a connection, waiting for one if all are in use.
    func acquire() async throws -> Connection {
        guard !closed else { throw OrderStoreError.storeClosed }
        if let connection = idle.popLast() {
            return connection
        }
        guard waiters.count < maximumWaiters else { throw LeaseDeadline.queueFull(waiters.count) }
        let id = nextWaiterID
        nextWaiterID += 1
        expiredEarly.allocate(id)
        return try await LeaseDeadline.run(timeout: maximumWait, clock: clock) {
            try await self.wait(id: id)
        } expire: { error in
            await self.expire(id: id, with: error)
        }
    }

    private func wait(id: Int) async throws -> Connection {
        try expiredEarly.join(id)
        // Re-checked on joining: the caller left the actor to start its deadline, and a connection released meanwhile
        // found nobody queued. Waiting now would strand the caller beside an idle connection until its deadline.
        guard !closed else { throw OrderStoreError.storeClosed }
        if let connection = idle.popLast() { return connection }
        return try await withCheckedThrowingContinuation {
            waiters.append((id, $0))
            let joined = waiters.count
            for watcher in queueWatchers where watcher.count <= joined { watcher.continuation.resume() }
            queueWatchers.removeAll { $0.count <= joined }
        }
    }

    private func expire(id: Int, with error: any Error) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else {
            expiredEarly.expire(id, with: error)
            return
        }
        waiters.remove(at: index).continuation.resume(throwing: error)
    }

    /// Returns a leased connection.
    func release(_ connection: Connection) {
        if !closed, !waiters.isEmpty {
            waiters.removeFirst().continuation.resume(returning: connection)
            return
        }
        idle.append(connection)
        if closed, idle.count == total, let drainWaiter {
            self.drainWaiter = nil
            drainWaiter.resume()
        }
    }

    /// Refuses new leases, fails queued ones, waits until every connection is back and returns them all.
    func drain() async -> [Connection] {
        guard !drained else { return [] }
        drained = true
        closed = true
        let pending = waiters
        waiters = []
        for waiter in pending {
            waiter.continuation.resume(throwing: OrderStoreError.storeClosed)
        }
        if idle.count < total {
            await withCheckedContinuation { drainWaiter = $0 }
        }
        let connections = idle
        idle = []
        return connections
    }

    /// Runs `body` with a leased connection and always returns it.
    nonisolated func withConnection<T: Sendable>(_ body: (Connection) async throws -> T) async throws -> T {
        let connection = try await acquire()
        do {
            let result = try await body(connection)
            await release(connection)
            return result
        } catch {
            await release(connection)
            throw error
        }
    }
}
