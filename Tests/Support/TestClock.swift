import Foundation
import Synchronization

/// A clock that stands still until the test moves it: pass `{ clock.now() }` where code takes
/// `now: @Sendable () -> Date`, then ``advance(by:)`` instead of sleeping until a lease or interval runs out.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    /// The clock's time.
    public func now() -> Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
