import Synchronization

/// The outcome of one piece of work that several tasks wait for (single flight): the task that started the work
/// finishes it with ``finish(_:)``, every other task waits in ``value()``.
///
/// Waiting does not end on cancellation: the work is bounded, and whoever started it always finishes it.
final class SharedOutcome<Value: Sendable>: Sendable {
    private enum State {
        case pending([CheckedContinuation<Value, any Error>])
        case finished(Result<Value, any Error>)
    }

    private let state = Mutex(State.pending([]))

    /// The work's value, once it is finished.
    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let finished: Result<Value, any Error>? = state.withLock { state in
                switch state {
                case .pending(var waiters):
                    waiters.append(continuation)
                    state = .pending(waiters)
                    return nil
                case .finished(let result):
                    return result
                }
            }
            if let finished { continuation.resume(with: finished) }
        }
    }

    /// Hands the result to every waiter, present and future; only the first call counts.
    func finish(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard case .pending(let waiters) = state else { return [] }
            state = .finished(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}

extension Result where Failure == any Error {
    /// The result of async work, its error included.
    init(awaiting body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
