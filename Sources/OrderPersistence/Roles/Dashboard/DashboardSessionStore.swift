import Foundation

/// The dashboard's sign-in sessions.
///
/// All methods throw ``OrderStoreError``.
public protocol DashboardSessionStore: Sendable {
    /// Stores a new dashboard session (its id only as a hash).
    func createDashboardSession(_ session: DashboardSessionRecord) async throws
    /// The dashboard session whose id has this SHA-256, expired or not (the caller judges expiry by its clock), while
    /// the key that opened it is unrevoked and unrotated; revoking or rotating a key deletes its sessions.
    func dashboardSession(idHash: String) async throws -> LiveDashboardSession?
    /// Deletes a dashboard session (sign-out); `false` if there was none.
    @discardableResult
    func deleteDashboardSession(idHash: String) async throws -> Bool
    /// Deletes every dashboard session of the merchant; returns the number deleted.
    func deleteDashboardSessions(merchantID: String) async throws -> Int
}
