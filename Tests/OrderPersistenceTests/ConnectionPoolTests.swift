import Foundation
import TestSupport
import Testing

@testable import OrderPersistence

/// Audit L13: the wait for a connection is bounded in time and in queue length, and ends as `busy` (503 at the edge).
@Suite struct ConnectionPoolTests {
    @Test func l13_aWaiterGivesUpAfterTheDeadlineAndTheQueueIsBounded() async throws {
        // A manual clock: the deadline passes when the test says so, however slow the machine is.
        let clock = TestClock()
        let pool = ConnectionPool(connections: [1], maximumWait: .milliseconds(300), maximumWaiters: 2, clock: clock)
        let held = try await pool.acquire()

        // Queued behind the held connection: still waiting just before the deadline, busy at it, not forever.
        let late = Task { try await pool.acquire() }
        await pool.waitUntilWaiting(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(299))
        #expect(pool.waiting == 1)
        clock.advance(by: .milliseconds(1))
        await #expect {
            _ = try await late.value
        } throws: { error in
            guard case OrderStoreError.busy(_, let reason) = error else { return false }
            return reason.contains("stayed in use for 0.3 seconds")
        }
        #expect(pool.waiting == 0)

        // Two may wait; a third is refused at once.
        let first = Task { try await pool.acquire() }
        await pool.waitUntilWaiting(1)
        let second = Task { try await pool.acquire() }
        await pool.waitUntilWaiting(2)
        await clock.waitForSleepers(2)
        await #expect {
            _ = try await pool.acquire()
        } throws: { error in
            guard case OrderStoreError.busy(_, let reason) = error else { return false }
            return reason.contains("2 requests are already waiting")
        }
        // A connection released in time reaches the first waiter (in order of arrival); the second then times out.
        pool.release(held)
        let handed = try await first.value
        #expect(handed == 1)
        clock.advance(by: .milliseconds(300))
        await #expect(throws: OrderStoreError.self) { _ = try await second.value }
        pool.release(handed)
        #expect(try await pool.acquire() == 1)
    }

    @Test func aCancelledWaiterLeavesTheQueueAndLosesNoConnection() async throws {
        // Shutdown cancels services that wait for the writer: the connection must come back to the pool, not be
        // dropped by a waiter that stopped listening.
        let pool = ConnectionPool(connections: [1], maximumWait: .seconds(60), clock: TestClock())
        let held = try await pool.acquire()
        let waiter = Task { try await pool.acquire() }
        await pool.waitUntilWaiting(1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        #expect(pool.waiting == 0)
        pool.release(held)
        #expect(try await pool.acquire() == 1)
    }

    @Test func aCallerCancelledBeforeItJoinsTheQueueFailsInsteadOfWaitingForever() async throws {
        // Its deadline fires at once (the sleep of a cancelled task ends at once), possibly before the waiter joins.
        let pool = ConnectionPool(connections: [1], maximumWait: .seconds(3600), clock: ContinuousClock())
        let held = try await pool.acquire()
        for _ in 0..<50 {
            let waiter = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await pool.acquire()
            }
            await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        }
        #expect(pool.waiting == 0)
        pool.release(held)
        #expect(try await pool.acquire() == 1)
    }

    @Test func aConnectionReleasedJustBeforeAWaiterJoinsReachesIt() async throws {
        // Between deciding to wait and joining the queue, the caller leaves the pool's actor (its deadline's task group
        // starts); a release in that gap found nobody waiting. The caller then waited for a connection that sat idle, until
        // its deadline: 15 s and a 503 in production, forever on a clock that stands still (the test hangs it caused).
        let clock = TestClock()
        let pool = ConnectionPool(connections: [1], maximumWait: .seconds(15), clock: clock)
        let served = Shared(0)
        for round in 1...500 {
            let held = try await pool.acquire()
            // The next caller, and the release racing with its decision to wait; nobody comes after them.
            let next = Task {
                let connection = try await pool.acquire()
                served.update { $0 += 1 }
                return connection
            }
            // From a task of its own after a few yields: it lands anywhere in the caller's path.
            let delay = Int.random(in: 0..<6)
            Task {
                for _ in 0..<delay { await Task.yield() }
                pool.release(held)
            }
            // A stranded caller is never served; the bound only ends the test, and a parallel suite's CPU-bound tests can
            // starve every task for 20 s.
            let reached = try await Poll.until(timeout: .seconds(60), every: .milliseconds(1)) { served.value == round }
            guard reached else {
                clock.advance(by: .seconds(15)) // fails the stranded waiter with `busy`, so the test ends
                _ = try? await next.value
                Issue.record("round \(round): the caller stayed queued while the connection was idle")
                return
            }
            pool.release(try await next.value)
        }
        #expect(pool.waiting == 0)
    }

    @Test func manyConcurrentCallersNeverShareAConnectionAndDrainGetsEveryOneBack() async throws {
        // The pool leases under a lock: idle leases, hand-overs to waiters and releases race from many threads.
        let pool = ConnectionPool(connections: [1, 2], maximumWait: .seconds(60), clock: ContinuousClock())
        let inUse = Shared(Set<Int>())
        let doubleLeases = Shared(0)
        let leases = Shared(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    for _ in 0..<50 {
                        try await pool.withConnection { connection in
                            inUse.update { if !$0.insert(connection).inserted { doubleLeases.update { $0 += 1 } } }
                            await Task.yield()
                            inUse.update { _ = $0.remove(connection) }
                            leases.update { $0 += 1 }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(doubleLeases.value == 0)
        #expect(leases.value == 5_000)
        #expect(pool.waiting == 0)
        #expect(await pool.drain().sorted() == [1, 2])
        await #expect(throws: OrderStoreError.self) { _ = try await pool.acquire() }
    }

    @Test func aDeadlineBeforeTheWaiterJoinsFailsItAsItJoins() throws {
        var expiries = LeaseDeadline.EarlyExpiries()
        expiries.allocate(1)
        expiries.expire(1, with: LeaseDeadline.timedOut(after: .seconds(1)))
        #expect(throws: OrderStoreError.self) { try expiries.join(1) }
        // A waiter that joined and was served: a late deadline leaves nothing behind.
        expiries.allocate(2)
        try expiries.join(2)
        expiries.expire(2, with: CancellationError())
        expiries.allocate(3)
        try expiries.join(3)
    }
}
