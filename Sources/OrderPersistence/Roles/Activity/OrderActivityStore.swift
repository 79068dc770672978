import Foundation

/// What happened to an order: its activity, its change history and its push log.
///
/// All methods throw ``OrderStoreError``.
public protocol OrderActivityStore: Sendable {
    /// Appends activity recorded outside a change's transaction (package fetches, written behind), in one transaction.
    func appendActivity(_ entries: [OrderActivity]) async throws
    /// The most recent `limit` activity entries of an order, newest first.
    func orderActivity(orderTypeIdentifier: String, orderIdentifier: String, limit: Int) async throws -> [OrderActivity]
    /// The most recent `limit` changes of an order (creation and updates, with who, where from and the diff), newest
    /// first: the order's audit trail.
    func orderHistory(orderTypeIdentifier: String, orderIdentifier: String, limit: Int) async throws -> [OrderActivity]
    /// The id of the order's latest activity entry (0 before any): it moves with every entry recorded.
    func latestActivityID(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int64
    /// The most recent attempts for an order, newest first.
    func pushLog(orderTypeIdentifier: String, orderIdentifier: String, limit: Int) async throws -> [PushLogEntry]
    /// The id of the order's latest push log entry (0 before any): it moves with every push attempt recorded.
    func latestPushLogID(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int64
    /// The id of the latest push log entry of any of these orders of the merchant (0 before any): it moves with every
    /// push attempt recorded for one of them. Keys of other merchants' orders count for nothing.
    func latestPushLogID(merchantID: String, of orders: [OrderKey]) async throws -> Int64
}
