import Foundation

/// Which fulfillments carry which tracking numbers, so that a carrier event finds the fulfillment it is about, and the
/// time of the last scan applied to each, so that an older scan never overwrites a newer one.
///
/// All methods throw ``OrderStoreError``.
public protocol FulfillmentTrackingStore: Sendable {
    /// Makes `entries` the order's tracked fulfillments: others of the order are dropped, a fulfillment whose tracking
    /// number changed forgets its last scan. The merchant's unmatched carrier events for these tracking numbers are set
    /// back to pending, in the same transaction; returns how many.
    /// Throws ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)`` when the merchant has no such
    /// order, ``OrderStoreError/invalidArgument(name:reason:)`` when two entries name the same fulfillment.
    @discardableResult
    func replaceFulfillmentTracking(order: OrderKey, merchantID: String, entries: [FulfillmentTrackingEntry]) async throws -> Int
    /// The merchant's fulfillments with this tracking number (compared exactly, after trimming).
    func trackedFulfillments(merchantID: String, trackingNumber: String) async throws -> [TrackedFulfillment]
    /// The merchant's fulfillments with any of these tracking numbers (compared exactly, after trimming), each with its
    /// order, in one read: what a batch of carrier events is about. Ordered by tracking number, then order and
    /// fulfillment.
    func trackedOrders(merchantID: String, trackingNumbers: [String]) async throws -> [TrackedOrder]
    /// The order's tracked fulfillments, by fulfillment identifier.
    func trackedFulfillments(order: OrderKey) async throws -> [TrackedFulfillment]
    /// Records that a scan of `at` was applied to the fulfillment, unless a later one was: `true` when `at` is not older
    /// than its last scan (and is now its last scan), `false` when it is older or the fulfillment is not tracked.
    @discardableResult
    func recordFulfillmentScan(order: OrderKey, fulfillmentIdentifier: String, at: Date) async throws -> Bool
}
