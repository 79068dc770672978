import Foundation

/// The server's one source of time, injected as postgres-nio's connection pool takes a `Clock`: the dates it writes
/// into documents and rows and compares with expiries, and every wait, interval, deadline and elapsed time of its
/// loops and middleware. Production uses ``system``; a test builds one on a clock it holds still and moves, so no part
/// of the server reads the time or waits behind the test's back.
public struct ServerClock: Clock {
    /// A point on the clock: the time since the clock was made.
    public struct Instant: InstantProtocol, Hashable {
        let offset: Swift.Duration

        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let currentDate: @Sendable () -> Date
    private let elapsed: @Sendable () -> Swift.Duration
    private let sleeper: @Sendable (Swift.Duration) async throws -> Void
    public let minimumResolution: Swift.Duration

    /// Dates from `date`, waits and instants from `waits`.
    public init<Base: Clock>(date: @escaping @Sendable () -> Date, waits base: Base) where Base.Duration == Swift.Duration {
        let origin = base.now
        currentDate = date
        elapsed = { origin.duration(to: base.now) }
        sleeper = { try await base.sleep(for: $0) }
        minimumResolution = base.minimumResolution
    }

    /// A clock whose dates start at `start` and run with `base`: moving `base` moves the dates and the waits together.
    public init<Base: Clock>(_ base: Base, startingAt start: Date) where Base.Duration == Swift.Duration {
        let origin = base.now
        self.init(date: { start.addingTimeInterval(origin.duration(to: base.now).seconds) }, waits: base)
    }

    /// The wall clock's dates and the continuous clock's waits.
    public static let system = ServerClock(date: Date.init, waits: ContinuousClock())

    /// The current date, as the server writes and compares dates.
    public var date: Date { currentDate() }

    public var now: Instant { Instant(offset: elapsed()) }

    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        try await sleeper(now.duration(to: deadline))
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var seconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
