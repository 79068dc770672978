import Foundation
import Synchronization

/// The one clock of the tests: it stands still until the test moves it.
///
/// A `Clock` for code that takes `any Clock<Duration>` (deadlines, leases, intervals), and a wall clock through
/// ``date`` for code that takes `now: @Sendable () -> Date`: pass `{ clock.date }`. Both read the same time, so a test
/// moves them together with ``advance(by:)`` instead of sleeping until a lease or interval runs out.
///
/// Why not swift-clocks' `TestClock`: a test here must know that the code under test is asleep on the clock before it
/// moves time (a deadline raced against a queue), and that one only yields a number of times before it advances.
/// ``waitForSleepers(_:)`` waits for exactly that, woken by the sleepers themselves rather than by polling.
public final class TestClock: Clock, Sendable {
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
        /// Tests waiting in ``waitForSleepers(_:)`` or ``waitForSleeper(until:)``: what each waits for.
        var watchers: [(isMet: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

        var asleep: Int { sleepers.values.count { $0.continuation != nil } }

        func hasSleeper(until deadline: Instant) -> Bool {
            sleepers.values.contains { $0.continuation != nil && $0.deadline == deadline }
        }

        /// Removes the watchers whose condition is met, for the caller to resume outside the lock.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let state = self
            let due = watchers.filter { $0.isMet(state) }.map(\.continuation)
            watchers.removeAll { $0.isMet(state) }
            return due
        }
    }

    private let state = Mutex(State())
    /// The wall-clock date of the instant zero.
    private let start: Date

    /// A clock whose ``date`` starts at `start`.
    public init(_ start: Date = Date()) {
        self.start = start
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// The clock's time as a date, for code that reads the time as `Date`.
    public var date: Date {
        let offset = now.offset.components
        return start.addingTimeInterval(Double(offset.seconds) + Double(offset.attoseconds) / 1e18)
    }

    /// How many tasks sleep on the clock now.
    public var sleepers: Int { state.withLock { $0.asleep } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            state.sleepers[state.nextID] = Sleeper(deadline: deadline)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    guard let sleeper = state.sleepers[id] else { return (nil, []) }
                    if sleeper.cancelled {
                        state.sleepers[id] = nil
                        return (.failure(CancellationError()), [])
                    }
                    if deadline <= state.now {
                        state.sleepers[id] = nil
                        return (.success(()), [])
                    }
                    state.sleepers[id]?.continuation = continuation
                    return (nil, state.satisfiedWatchers())
                }
                if let outcome { continuation.resume(with: outcome) }
                for watcher in watchers { watcher.resume() }
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

    /// Returns once at least `count` tasks sleep on the clock: the sleeper that makes the count resumes it.
    public func waitForSleepers(_ count: Int) async {
        await wait { $0.asleep >= count }
    }

    /// Returns once a task sleeps on the clock until exactly `deadline`. On a clock that stands still, a sleep of a
    /// known interval ends at a known instant: this tells one sleeper (a stream's poll) from the others asleep beside
    /// it (a server's background loops, whose number the test need not know).
    public func waitForSleeper(until deadline: Instant) async {
        await wait { $0.hasSleeper(until: deadline) }
    }

    private func wait(for isMet: @escaping @Sendable (State) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if isMet(state) { return true }
                state.watchers.append((isMet, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
