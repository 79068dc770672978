import Synchronization

/// Lets a refresh run at most once per interval: the gauges that `/metrics` counts with a scan when it is read.
final class RefreshThrottle: Sendable {
    private let interval: Duration
    private let clock: ServerClock
    private let last = Mutex(ServerClock.Instant?.none)

    init(interval: Duration = .seconds(1), clock: ServerClock) {
        self.interval = interval
        self.clock = clock
    }

    /// Whether a refresh is due now; when it is, the next is due an interval later.
    func take() -> Bool {
        let now = clock.now
        return last.withLock { last in
            guard last.map({ $0.duration(to: now) >= interval }) ?? true else { return false }
            last = now
            return true
        }
    }
}
