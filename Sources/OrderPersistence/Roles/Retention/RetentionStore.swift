import Foundation

/// Deleting what outlived its retention period, each in bounded writes.
///
/// All methods throw ``OrderStoreError``.
public protocol RetentionStore: Sendable {
    /// Deletes activity recorded before `date`; returns the number deleted.
    func deleteActivity(before date: Date) async throws -> Int
    /// Deletes push log entries recorded before `date`, oldest first, a bounded batch per transaction so that
    /// concurrent writers never wait long; returns the number deleted.
    func deletePushLog(before date: Date) async throws -> Int
    /// Deletes merchant events created before `date` (kept as long as the push log), a bounded batch per transaction;
    /// returns the number deleted.
    func deleteEvents(before date: Date) async throws -> Int
    /// Deletes idempotent responses created before `date`; returns the number deleted.
    func deleteIdempotentResponses(createdBefore date: Date) async throws -> Int
    /// Deletes the dashboard sessions that expired before `date`; returns the number deleted.
    func deleteDashboardSessions(expiredBefore date: Date) async throws -> Int
    /// Deletes wallet links that expired before `date`, with their registrations; returns the number of links deleted.
    func deleteWalletLinks(expiredBefore date: Date) async throws -> Int
    /// Deletes the registrations made with the device tokens of links that expired before `date`; returns the number
    /// deleted.
    func deleteRegistrations(ofWalletLinksExpiredBefore date: Date) async throws -> Int
    /// Deletes applied and ignored carrier events received before `date`, a bounded batch per transaction (unmatched and
    /// failed ones stay for the merchant to see); returns the number deleted.
    func deleteCarrierEvents(before date: Date) async throws -> Int
    /// Deletes the hourly insight roll-ups of hours before `date`, a bounded batch per transaction (the daily ones stay:
    /// they answer for any range, and the active registrations of an hour sum days before it and hours of its day
    /// only); returns the number deleted.
    func deleteHourlyInsights(before date: Date) async throws -> Int
}
