import OrderPersistence
import Synchronization

/// A send's outcome on its way to the outbox.
typealias PushOutcomeRecord = (job: PushJob, resolution: PushJobResolution, log: PushLogEntry)

/// Carries outcomes from the sends to the task that records them, so that recording never holds up sending and
/// everything that arrived during one commit goes into the next.
final class OutcomeQueue: Sendable {
    private struct State {
        var outcomes: [PushOutcomeRecord] = []
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Adds a send's outcome.
    func append(_ outcome: PushOutcomeRecord) {
        state.withLock { state in
            state.outcomes.append(outcome)
            return state.waiter.take()
        }?.resume()
    }

    /// No more outcomes will come: `next` returns nil once the queue is empty.
    func finish() {
        state.withLock { state in
            state.finished = true
            return state.waiter.take()
        }?.resume()
    }

    /// Waits for at least one outcome and takes every waiting one; nil when finished and empty. One caller at a time.
    func next() async -> [PushOutcomeRecord]? {
        while true {
            let (outcomes, finished) = state.withLock { state in (Self.takeAll(&state), state.finished) }
            if !outcomes.isEmpty { return outcomes }
            if finished { return nil }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    guard state.outcomes.isEmpty, !state.finished else { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Takes every waiting outcome without waiting.
    func takeWaiting() -> [PushOutcomeRecord] {
        state.withLock { Self.takeAll(&$0) }
    }

    private static func takeAll(_ state: inout State) -> [PushOutcomeRecord] {
        var taken: [PushOutcomeRecord] = []
        swap(&taken, &state.outcomes)
        return taken
    }
}
