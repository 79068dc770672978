import Foundation
import OrderModel
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// One injected clock (#30): the server's dates and its waits come from `ServerClock`, so a test that holds the clock
/// still sees no time pass, however long the machine takes, and moves it instead of sleeping.
@Suite struct ServerClockTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    @Test func datesAndInstantsRunWithTheBaseClock() async throws {
        let base = TestClock()
        let clock = ServerClock(base, startingAt: Self.start)
        let before = clock.now
        #expect(clock.date == Self.start)
        base.advance(by: .seconds(90))
        #expect(clock.date == Self.start.addingTimeInterval(90))
        #expect(before.duration(to: clock.now) == .seconds(90))

        // A sleeper wakes when the base clock passes its deadline, not before.
        let woke = Task { try await clock.sleep(for: .seconds(30)) }
        await base.waitForSleepers(1)
        base.advance(by: .seconds(29))
        #expect(base.sleepers == 1)
        base.advance(by: .seconds(1))
        try await woke.value
        #expect(base.sleepers == 0)
    }

    /// The seam: a create stamps the server clock's date, and the rate limit refills only as that clock moves.
    @Test func theServerDatesOrdersAndRefillsRateLimitsOnItsClock() async throws {
        let base = TestClock()
        var server = try TestServer()
        server.clock = ServerClock(base, startingAt: Self.start)
        server.limits.perClientAddress = RateLimit(perSecond: 1, burst: 2)
        defer { server.remove() }
        try await server.run { client in
            let created = try await client.createOrder()
            #expect(created.reply.json["order"]?["createdAt"]?.stringValue == DateTimeFormat.formatRFC3339(Self.start))

            // The create used a token; one is left, then the bucket is empty until the clock moves.
            #expect(try await client.call(.get, "/healthz").status == .ok)
            let limited = try await client.call(.get, "/healthz")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "1")
            #expect(try await client.call(.get, "/healthz").status == .tooManyRequests, "no time passed on the server's clock")
            base.advance(by: .seconds(1))
            #expect(try await client.call(.get, "/healthz").status == .ok)
        }
    }
}
