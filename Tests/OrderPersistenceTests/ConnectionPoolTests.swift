import Foundation
import Testing

@testable import OrderPersistence

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

    @Test func aCancelledWaiterLeavesTheQueueAndLosesNoConnection() async throws {
        // Shutdown cancels services that wait for the writer: the connection must come back to the pool, not be
        // dropped by a waiter that stopped listening.
        let pool = ConnectionPool(connections: [1], maximumWait: .seconds(60))
        let held = try await pool.acquire()
        let waiter = Task { try await pool.acquire() }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        await pool.release(held)
        #expect(try await pool.acquire() == 1)
    }
}
