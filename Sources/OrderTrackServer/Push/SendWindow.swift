import Synchronization

/// Bounds the pushes in flight: the claim loop waits for room, each finished send makes some.
final class SendWindow: Sendable {
    private struct State {
        var inFlight = 0
        var waiter: (wanted: Int, continuation: CheckedContinuation<Int, Never>)?
    }

    /// Most sends in flight at once.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Waits until `wanted` more sends fit, or nothing is in flight, and returns how many fit now.
    ///
    /// Waiting for a chunk of room rather than a single slot keeps claims large, so the outbox pays one claim
    /// transaction per chunk, not per push. One caller at a time.
    func room(atLeast wanted: Int) async -> Int {
        await withCheckedContinuation { continuation in
            let ready: Int? = state.withLock { state in
                let room = capacity - state.inFlight
                guard room < min(wanted, capacity), state.inFlight > 0 else { return room }
                state.waiter = (wanted, continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Counts `count` sends as started.
    func started(_ count: Int) {
        state.withLock { $0.inFlight += count }
    }

    /// Counts one send as finished, waking the claim loop once enough room opened.
    func finished() {
        let wake: (CheckedContinuation<Int, Never>, Int)? = state.withLock { state in
            state.inFlight -= 1
            let room = capacity - state.inFlight
            guard let waiter = state.waiter, room >= min(waiter.wanted, capacity) || state.inFlight == 0 else { return nil }
            state.waiter = nil
            return (waiter.continuation, room)
        }
        if let (continuation, room) = wake { continuation.resume(returning: room) }
    }
}
