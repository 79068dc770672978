import Foundation
import Synchronization

/// Counts lookups per key in fixed windows. In memory, per process: instances behind one load balancer each allow the
/// limit.
final class LookupRateLimiter: Sendable {
    private struct Window {
        var start: Date
        var count: Int
    }

    private let limit: Int
    private let window: TimeInterval
    private let windows = Mutex<[String: Window]>([:])

    init(limit: Int, window: Duration) {
        self.limit = limit
        self.window = window.seconds
    }

    /// Counts one lookup by `keyID`; `nil` when it is within the limit, otherwise the whole seconds until the window
    /// ends (at least 1), for `Retry-After`.
    func admit(keyID: String, now: Date) -> Int? {
        windows.withLock { windows in
            // Forget finished windows now and then, so keys that stopped asking do not accumulate.
            if windows.count > 10_000 { windows = windows.filter { now.timeIntervalSince($0.value.start) < window } }
            var current = windows[keyID] ?? Window(start: now, count: 0)
            if now.timeIntervalSince(current.start) >= window { current = Window(start: now, count: 0) }
            guard current.count < limit else {
                return max(1, Int((window - now.timeIntervalSince(current.start)).rounded(.up)))
            }
            current.count += 1
            windows[keyID] = current
            return nil
        }
    }
}
