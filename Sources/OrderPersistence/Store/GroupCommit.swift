import Synchronization

/// Writes what concurrent callers submit together: while one batch commits, the submissions that arrive wait, and the
/// next transaction takes all of them (a group commit).
///
/// A caller alone commits at once, so a quiet server adds no latency; under load the writer's fixed costs (its
/// transaction, each statement's trip to the database thread) are shared by the batch. Measured on SQLite, storing
/// carrier events one transaction each stopped at about 1,400 a second whatever the concurrency, with the writer's
/// thread hops, not the statements, as the cost.
///
/// There is no background task: the first caller commits, and when its batch is done it hands the next batch to the
/// first caller waiting, so every caller's task does the work for its own batch and returns when its result is known.
///
/// Up to `concurrentBatches` batches commit at once: one where the database has one writer (SQLite), more where
/// transactions run side by side (PostgreSQL), so a batch's round trips to the server do not hold up the next.
final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    /// Commits a batch in one transaction; answers one result per item, in order. When it throws, each item of the batch
    /// is committed again alone.
    typealias Commit = @Sendable ([Item]) async throws -> [Result<Output, any Error>]

    private enum Turn: Sendable {
        case done(Result<Output, any Error>)
        case lead
    }

    private struct Waiting: Sendable {
        var item: Item
        var continuation: CheckedContinuation<Turn, Never>
    }

    private struct State: Sendable {
        var waiting: [Waiting] = []
        /// Batches committing now.
        var committing = 0
    }

    private let state = Mutex(State())
    private let maximumBatch: Int
    private let concurrentBatches: Int

    init(maximumBatch: Int, concurrentBatches: Int = 1) {
        precondition(maximumBatch > 0 && concurrentBatches > 0)
        self.maximumBatch = maximumBatch
        self.concurrentBatches = concurrentBatches
    }

    /// How many submissions wait for the commit under way (a test waits for them to queue).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Commits `item` with whatever else is submitted meanwhile; returns its result once its transaction committed.
    /// Every caller passes the same `commit` (whoever leads a batch runs it); taking it here keeps the owner of this
    /// value out of a reference cycle.
    func submit(_ item: Item, commit: Commit) async throws -> Output {
        let turn = await withCheckedContinuation { continuation in
            let leads = state.withLock { state in
                guard state.committing == concurrentBatches else {
                    state.committing += 1
                    return true
                }
                state.waiting.append(Waiting(item: item, continuation: continuation))
                return false
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .done(let result): return try result.get()
        case .lead: return try await lead(with: item, commit: commit)
        }
    }

    /// Commits `item` and the submissions waiting behind it, answers them, and passes the turn on.
    private func lead(with item: Item, commit: Commit) async throws -> Output {
        let followers = state.withLock { state in
            // A fair share of what waits, so the batches committing side by side take about as long as each other.
            let share = (state.waiting.count + 1 + concurrentBatches - 1) / concurrentBatches
            let taken = Array(state.waiting.prefix(min(maximumBatch, share) - 1))
            state.waiting.removeFirst(taken.count)
            return taken
        }
        let batch = [item] + followers.map(\.item)
        var results: [Result<Output, any Error>]
        do {
            results = try await commit(batch)
        } catch {
            results = [.failure(error)]
            // One item's failure (a constraint, a deadlock between instances) must not be the others': alone, each
            // gets its own answer.
            if batch.count > 1 {
                results = []
                for item in batch { results.append(await Self.alone(item, commit)) }
            }
        }
        for (follower, result) in zip(followers, results.dropFirst()) { follower.continuation.resume(returning: .done(result)) }
        let next = state.withLock { state -> Waiting? in
            guard !state.waiting.isEmpty else {
                state.committing -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        return try results[0].get()
    }

    private static func alone(_ item: Item, _ commit: Commit) async -> Result<Output, any Error> {
        do {
            return try await commit([item])[0]
        } catch {
            return .failure(error)
        }
    }
}
