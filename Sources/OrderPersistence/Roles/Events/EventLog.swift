import Foundation

/// Each merchant's event log: what changed, written in the change's own transaction (see ``EventType``), read by the
/// events API. Entries are kept as long as the push log (``RetentionStore/deleteEvents(before:)``).
///
/// All methods throw ``OrderStoreError``.
public protocol EventLog: Sendable {
    /// The merchant's events, newest first, of one type when `type` is given; `after` is the previous page's
    /// ``EventPage/nextCursor``.
    ///
    /// - Throws: ``OrderStoreError/invalidArgument(name:reason:)`` when `limit` is not 1 to 100,
    ///   ``OrderStoreError/invalidCursor(_:)`` for a cursor this list did not issue.
    func events(merchantID: String, type: EventType?, after cursor: String?, limit: Int) async throws -> EventPage
    /// The merchant's event with this id; `nil` when there is none, or it is another merchant's.
    func event(id: String, merchantID: String) async throws -> EventRecord?
}
