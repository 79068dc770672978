import Synchronization

/// A `Clock` that stands still until the test moves it, for code that takes `any Clock<Duration>`.
///
/// Why not swift-clocks' `TestClock`: a test here must know that the code under test is asleep on the clock before it
/// moves time (a deadline raced against a queue), and `TestClock` only yields a number of times before it advances.
/// ``waitForSleepers(_:)`` waits for exactly that.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>?
        var cancelled = false
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks sleep on the clock now.
    public var sleepers: Int { state.withLock { $0.sleepers.values.count { $0.continuation != nil } } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            state.sleepers[state.nextID] = Sleeper(deadline: deadline)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    guard let sleeper = state.sleepers[id] else { return nil }
                    if sleeper.cancelled {
                        state.sleepers[id] = nil
                        return .failure(CancellationError())
                    }
                    if deadline <= state.now {
                        state.sleepers[id] = nil
                        return .success(())
                    }
                    state.sleepers[id]?.continuation = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let sleeper = state.sleepers[id] else { return nil }
                guard let continuation = sleeper.continuation else {
                    state.sleepers[id]?.cancelled = true
                    return nil
                }
                state.sleepers[id] = nil
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let ids = state.sleepers.filter { $0.value.continuation != nil && $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on the clock (checking every millisecond of real time).
    public func waitForSleepers(_ count: Int) async throws {
        while sleepers < count { try await Task.sleep(for: .milliseconds(1)) }
    }
}
