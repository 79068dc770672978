/// A fixed set of connections leased one task at a time, in FIFO order of requests.
///
/// A pool of one connection serializes its users, which is how SQLite writers avoid `SQLITE_BUSY`.
actor ConnectionPool<Connection: Sendable> {
    private let total: Int
    private var idle: [Connection]
    private var waiters: [CheckedContinuation<Connection, any Error>] = []
    private var closed = false
    private var drainWaiter: CheckedContinuation<Void, Never>?
    private var drained = false

    init(connections: [Connection]) {
        self.total = connections.count
        self.idle = connections
    }

    /// Leases a connection, waiting for one if all are in use.
    func acquire() async throws -> Connection {
        guard !closed else { throw OrderStoreError.storeClosed }
        if let connection = idle.popLast() {
            return connection
        }
        return try await withCheckedThrowingContinuation { waiters.append($0) }
    }

    /// Returns a leased connection.
    func release(_ connection: Connection) {
        if !closed, !waiters.isEmpty {
            waiters.removeFirst().resume(returning: connection)
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
            waiter.resume(throwing: OrderStoreError.storeClosed)
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
