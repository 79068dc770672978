import Foundation
import Testing
@testable import OrderStore

/// Audit L13: the wait for a connection is bounded in time and in queue length, and ends as `busy` (503 at the edge).
@Suite struct ConnectionPoolTests {
    @Test func l13_aWaiterGivesUpAfterTheDeadlineAndTheQueueIsBounded() async throws {
        let pool = ConnectionPool(connections: [1], maximumWait: .milliseconds(300), maximumWaiters: 2)
        let held = try await pool.acquire()

        // Queued behind the held connection: busy after the deadline, not forever.
        let started = ContinuousClock.now
        await #expect {
            _ = try await pool.acquire()
        } throws: { error in
            guard case OrderStoreError.busy(_, let reason) = error else { return false }
            return reason.contains("stayed in use")
        }
        #expect(ContinuousClock.now - started < .seconds(5))

        // Two may wait; a third is refused at once.
        async let first = pool.acquire()
        async let second = pool.acquire()
        try await Task.sleep(for: .milliseconds(50))
        await #expect {
            _ = try await pool.acquire()
        } throws: { error in
            guard case OrderStoreError.busy(_, let reason) = error else { return false }
            return reason.contains("already waiting")
        }
        // A connection released in time reaches the first waiter; the second then times out.
        await pool.release(held)
        let handed = try await first
        #expect(handed == 1)
        let secondOutcome: Result<Int, any Error>
        do { secondOutcome = .success(try await second) } catch { secondOutcome = .failure(error) }
        #expect(throws: OrderStoreError.self) { _ = try secondOutcome.get() }
        await pool.release(handed)
        #expect(try await pool.acquire() == 1)
    }
}
