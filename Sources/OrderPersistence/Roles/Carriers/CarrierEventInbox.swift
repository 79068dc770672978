import Foundation

/// The inbox of verified carrier events: the webhook route stores them and answers at once, a worker claims and applies
/// them. Durable and safe with several instances as the push outbox is: a claim is a lease, and a claimer that dies
/// leaves its events to be claimed again once the lease runs out.
///
/// All methods throw ``OrderStoreError``.
public protocol CarrierEventInbox: Sendable {
    /// Stores a verified event as pending, for its connection's merchant. A redelivery (the same idempotency key on the
    /// same connection) changes nothing and answers the first delivery's id with ``CarrierEventReceipt/isNew`` `false`.
    /// Throws ``OrderStoreError/carrierConnectionNotFound(id:)``, or ``OrderStoreError/invalidArgument(name:reason:)`` for
    /// a blank tracking number.
    func receiveCarrierEvent(_ event: IncomingCarrierEvent) async throws -> CarrierEventReceipt
    /// Claims up to `limit` pending events for `leaseDuration`, oldest first, and counts the attempt. Events another
    /// claimer holds are skipped; events whose lease ran out are claimable again.
    func claimCarrierEvents(limit: Int, leaseDuration: TimeInterval) async throws -> [CarrierEventRecord]
    /// Finishes claimed events, in one transaction, each in its ``CarrierEventFinish/state`` with its outcome and the
    /// fulfillment it matched; returns the state each ended in (in the order given), or `nil` for one whose claim no
    /// longer holds (claimed again, or finished). An event finished ``CarrierEventState/unmatched`` goes back to
    /// ``CarrierEventState/pending`` instead when more of the merchant's fulfillments have its tracking number than the
    /// ``CarrierEventFinish/candidates`` the worker saw: one got the number meanwhile.
    /// Throws ``OrderStoreError/invalidArgument(name:reason:)`` for ``CarrierEventState/pending``.
    func finishCarrierEvents(_ finishes: [CarrierEventFinish]) async throws -> [CarrierEventState?]
    /// Frees every claim; only for a process that knows it is the database's sole worker (SQLite), after a restart.
    func releaseCarrierEventLeases() async throws
    /// How many events wait to be applied (pending, claimed or not): the inbox's backlog.
    func pendingCarrierEventCount() async throws -> Int
    /// The merchant's unmatched events for a tracking number, oldest first
    /// (``FulfillmentTrackingStore/replaceFulfillmentTracking(order:merchantID:entries:)`` sets them back to pending).
    func unmatchedCarrierEvents(merchantID: String, trackingNumber: String) async throws -> [CarrierEventRecord]
    /// The merchant's latest `limit` events, newest first, for the dashboard.
    func recentCarrierEvents(merchantID: String, limit: Int) async throws -> [CarrierEventRecord]
}

extension CarrierEventInbox {
    /// Finishes one claimed event whose worker saw no fulfillment with its tracking number (``finishCarrierEvents(_:)``).
    @discardableResult
    public func finishCarrierEvent(id: Int64, attempt: Int, state: CarrierEventState, outcome: String, match: CarrierEventMatch?) async throws
        -> CarrierEventState?
    {
        try await finishCarrierEvents([CarrierEventFinish(id: id, attempt: attempt, state: state, outcome: outcome, match: match)])[0]
    }
}
