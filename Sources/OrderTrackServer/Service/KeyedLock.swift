/// Serializes work per key inside one process, first come first served.
///
/// Concurrent updates of one order would otherwise mostly lose their optimistic version check and retry; queueing
/// them locally keeps every update's work to one attempt. The version check still guards against other processes.
actor KeyedLock {
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    func withLock<Value: Sendable>(_ key: String, _ body: @Sendable () async throws -> Value) async throws -> Value {
        await acquire(key)
        do {
            let value = try await body()
            release(key)
            return value
        } catch {
            release(key)
            throw error
        }
    }

    private func acquire(_ key: String) async {
        guard waiters[key] != nil else {
            waiters[key] = []
            return
        }
        await withCheckedContinuation { waiters[key]!.append($0) }
    }

    private func release(_ key: String) {
        guard var queue = waiters[key] else { return }
        if queue.isEmpty {
            waiters[key] = nil
        } else {
            let next = queue.removeFirst()
            waiters[key] = queue
            next.resume()
        }
    }
}
