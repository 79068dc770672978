import Synchronization
import TestSupport
import Testing

@testable import OrderTrackServer

/// The loop of the carrier event worker: batches are claimed while earlier ones are still being applied, never more
/// than the limit at once, and an empty claim waits for a wake-up.
struct BatchLoopTests {
    /// Batches whose application waits until the test lets it end.
    final class Batches: Sendable {
        struct State {
            var waiting: [[Int]]
            var claims = 0
            var started: [Int] = []
            var finished: [Int] = []
            var releases: [Int: CheckedContinuation<Void, Never>] = [:]
            var released: Set<Int> = []
        }

        let state: Mutex<State>

        init(_ batches: [[Int]]) { state = Mutex(State(waiting: batches)) }

        func claim() -> [Int] {
            state.withLock { state in
                state.claims += 1
                return state.waiting.isEmpty ? [] : state.waiting.removeFirst()
            }
        }

        func apply(_ batch: [Int]) async {
            let id = batch[0]
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state -> Bool in
                    state.started.append(id)
                    if state.released.contains(id) { return true }
                    state.releases[id] = continuation
                    return false
                }
                if resume { continuation.resume() }
            }
            state.withLock { $0.finished.append(id) }
        }

        func release(_ id: Int) {
            let continuation = state.withLock { state in
                state.released.insert(id)
                return state.releases.removeValue(forKey: id)
            }
            continuation?.resume()
        }

        var snapshot: State { state.withLock { $0 } }
    }

    @Test func theNextBatchIsClaimedWhileEarlierOnesApplyAndNoMoreThanTheLimitAtOnce() async throws {
        let signal = WakeSignal()
        let batches = Batches([[1], [2], [3]])
        let loop = Task { await signal.applyBatches(limit: 2, claim: { batches.claim() }, apply: { await batches.apply($0) }) }

        // Two batches applying side by side, neither finished: the second was claimed while the first waited.
        #expect(try await Poll.until(timeout: .seconds(10)) { batches.snapshot.started.count == 2 })
        #expect(batches.snapshot.started.sorted() == [1, 2])
        #expect(batches.snapshot.finished.isEmpty)
        // At the limit the loop waits for one to end instead of claiming a third.
        try await Task.sleep(for: .milliseconds(100))
        #expect(batches.snapshot.claims == 2)

        batches.release(2)
        #expect(try await Poll.until(timeout: .seconds(10)) { batches.snapshot.started.count == 3 })
        #expect(batches.snapshot.finished == [2])
        batches.release(1)
        batches.release(3)
        // The inbox is empty: the loop claims once more, then waits for a wake-up.
        #expect(try await Poll.until(timeout: .seconds(10)) { batches.snapshot.finished.count == 3 && batches.snapshot.claims == 4 })
        signal.wake()
        #expect(try await Poll.until(timeout: .seconds(10)) { batches.snapshot.claims == 5 })
        loop.cancel()
        await loop.value
        #expect(batches.snapshot.finished.sorted() == [1, 2, 3])
    }
}
