/// Bounds how long a caller waits in a connection pool's queue.
enum LeaseDeadline {
    /// Runs `waiting` (which queues the caller and suspends until it is handed a connection); if it is still waiting
    /// after `timeout`, or when the caller is cancelled, `expire` runs, which must fail that waiter with the error it is given (busy, or `CancellationError`). A
    /// connection handed over at the last moment is still returned, so the caller can give it back.
    static func run<T: Sendable>(
        timeout: Duration, clock: any Clock<Duration>, waiting: @escaping @Sendable () async throws -> T,
        expire: @escaping @Sendable (_ error: any Error) async -> Void
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await waiting() }
            group.addTask {
                // Never throws: a cancelled caller ends its wait through `expire` too. Were this child to throw, the
                // group would stop listening to the waiter, and a connection handed to it afterwards would be lost.
                try? await clock.sleep(for: timeout)
                await expire(Task.isCancelled ? CancellationError() : timedOut(after: timeout))
                return nil
            }
            while let result = try await group.next() {
                if let value = result {
                    group.cancelAll()
                    return value
                }
            }
            throw OrderStoreError.busy(operation: "wait for a database connection", reason: "the wait ended without a connection")
        }
    }

    /// The waiters that have an identifier but have not joined their pool's queue yet. The deadline runs beside the
    /// waiter, so on a starved machine it can fire before the waiter joins; that waiter must then fail as it joins,
    /// not wait on with no deadline left.
    struct EarlyExpiries {
        private var allocated: Set<Int> = []
        private var errors: [Int: any Error] = [:]

        mutating func allocate(_ id: Int) { allocated.insert(id) }

        /// Called as the waiter joins the queue: throws the error of a deadline that came first.
        mutating func join(_ id: Int) throws {
            if let error = errors.removeValue(forKey: id) { throw error }
            allocated.remove(id)
        }

        /// Called when the deadline finds the waiter outside the queue: either not there yet (remembered) or already
        /// served (nothing to do).
        mutating func expire(_ id: Int, with error: any Error) {
            if allocated.remove(id) != nil { errors[id] = error }
        }
    }

    static func timedOut(after timeout: Duration) -> OrderStoreError {
        .busy(operation: "wait for a database connection", reason: "every connection stayed in use for \(timeout)")
    }

    static func queueFull(_ waiting: Int) -> OrderStoreError {
        .busy(operation: "wait for a database connection", reason: "\(waiting) requests are already waiting for one")
    }
}
