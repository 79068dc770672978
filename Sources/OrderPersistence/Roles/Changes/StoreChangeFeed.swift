import Foundation

/// The changes any process commits, for copies kept in memory.
///
/// All methods throw ``OrderStoreError``.
public protocol StoreChangeFeed: Sendable {
    /// Reports the changes of orders and order types that any process commits, for copies kept in
    /// memory, until the task is cancelled.
    ///
    /// Each change is reported after its commit. ``StoreChangeEvent/following`` comes first and after every
    /// ``StoreChangeEvent/interrupted(reason:)``: between the two, changes may go unreported. With SQLite this process
    /// is the only writer, so ``StoreChangeEvent/following`` is all it reports.
    func followChanges(_ report: @escaping @Sendable (StoreChangeEvent) async -> Void) async throws
}
