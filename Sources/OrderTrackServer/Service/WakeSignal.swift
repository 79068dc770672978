/// Wake-ups of a background loop (the push dispatcher, the carrier event worker): new work, poll ticks, shutdown.
/// At most one waits, so a burst of them costs the loop one round, and one that arrives while the loop is busy is kept
/// for its next wait. Made before the loop, so that the services that give it work can hold it.
struct WakeSignal: Sendable {
    let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func wake() {
        continuation.yield()
    }
}

extension WakeSignal {
    /// Claims batches and applies them until shutdown or cancellation, claiming the next while up to `limit` are still
    /// being applied; with nothing to claim, waits for a wake-up. A batch's time is mostly spent waiting for the
    /// database, which batches side by side overlap, as the loops of several instances do.
    func applyBatches<Batch: Sendable>(
        limit: Int, claim: () async -> [Batch], apply: @escaping @Sendable ([Batch]) async -> Void
    ) async {
        var wakeups = self.wakeups.makeAsyncIterator()
        await withTaskGroup(of: Void.self) { group in
            // Counts finished batches too until the next `group.next()`, which then returns at once.
            var applying = 0
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                if applying >= max(1, limit) {
                    await group.next()
                    applying -= 1
                }
                let batch = await claim()
                if batch.isEmpty {
                    guard await wakeups.next() != nil else { return }
                    continue
                }
                applying += 1
                group.addTask { await apply(batch) }
            }
        }
    }
}
