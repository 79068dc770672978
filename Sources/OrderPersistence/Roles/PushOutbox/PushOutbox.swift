import Foundation

/// The queue of pushes to send: order changes enqueue, the dispatcher claims, renews and resolves.
///
/// All methods throw ``OrderStoreError``.
public protocol PushOutbox: Sendable {
    /// Queues a push to every device registered for the order (order updates do this in their own transaction);
    /// returns how many tokens that reaches.
    func enqueuePushes(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int
    /// Queues the next `limit` pushes of the oldest fan-out still being queued (an order write queues its first 1,000
    /// tokens itself and leaves the rest to this); returns how many tokens that reached, `nil` when no fan-out waits.
    func expandPushFanOut(limit: Int) async throws -> Int?
    /// Adds an observer told after each commit that left a fan-out to expand.
    func observePushFanOuts(_ observer: @escaping @Sendable () -> Void)
    /// Claims up to `limit` due jobs for `leaseDuration`, in queue order after `position` (from the start without one); a
    /// job whose claimer dies is claimable again afterwards, by a claim from the start.
    func claimPushJobs(limit: Int, leaseOwner: String, leaseDuration: TimeInterval, after position: PushQueuePosition?) async throws -> [PushJob]
    /// Extends the claims `leaseOwner` still holds on the given jobs to now + `leaseDuration`, so that a send slower than
    /// the lease (a loaded machine, a slow APNs) is not taken over while it is in flight. A claim that already expired
    /// is not revived: another sender may hold the job by now. Returns how many claims were extended.
    @discardableResult
    func renewPushLeases(jobIDs: [Int64], leaseOwner: String, leaseDuration: TimeInterval) async throws -> Int
    /// Records a batch of attempts in the push log and applies each one's resolution to its job (and, for dead tokens,
    /// registrations), in one transaction. Returns how many jobs it made due again at once: delivered while a change of
    /// their order arrived, so that the device hears of that change too.
    @discardableResult
    func resolvePushJobs(_ outcomes: [(job: PushJob, resolution: PushJobResolution, log: PushLogEntry)]) async throws -> Int
    /// Frees every claim; only for a process that knows it is the database's sole sender (SQLite), after a restart.
    func releasePushLeases() async throws
    /// How many push jobs wait to be sent (`pending`) and how many wait for the next change (`parked`).
    func pushQueueDepth() async throws -> (pending: Int, parked: Int)
}

extension PushOutbox {
    /// Claims up to `limit` due jobs for `leaseDuration`, from the start of the queue.
    public func claimPushJobs(limit: Int, leaseOwner: String, leaseDuration: TimeInterval) async throws -> [PushJob] {
        try await claimPushJobs(limit: limit, leaseOwner: leaseOwner, leaseDuration: leaseDuration, after: nil)
    }
}
