import Foundation

/// The merchants' insight roll-ups: hourly and daily counts of what happened to their orders, incremented in the
/// transaction of each cause (see ``InsightMetric``), so that a page of them costs a few index ranges however many
/// orders lie behind it.
///
/// All methods throw ``OrderStoreError``.
public protocol InsightStore: Sendable {
    /// The merchant's counts in the buckets of `granularity` starting in `from..<to` (both bucket starts), of one
    /// order type when `orderTypeIdentifier` is given, with the net registrations before `from`.
    func insightCounts(merchantID: String, orderTypeIdentifier: String?, from: Date, to: Date, granularity: InsightGranularity) async throws
        -> InsightCounts
}
