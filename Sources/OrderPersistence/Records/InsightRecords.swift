import Foundation

/// What the insight roll-ups count; the raw value is the `metric` column's text.
public enum InsightMetric: String, Sendable, Hashable, CaseIterable {
    /// Orders created, by the order's `createdAt`.
    case ordersCreated = "orders_created"
    /// Orders added to a wallet: an order's first registration (`order.wallet_added`).
    case ordersAddedToWallet = "wallet_added"
    /// Orders removed from every wallet: an order's last registration going (`order.wallet_removed`).
    case removals = "wallet_removed"
    /// Registrations made less registrations deleted. Active registrations at a bucket are the running sum of these
    /// up to it: a delta, unlike a gauge, is one `count = count + n` per transaction whatever else commits meanwhile,
    /// and needs no row for the buckets in which nothing happened.
    case registrationChange = "registrations_delta"
    /// Pushes APNs accepted (push log entries `delivered`).
    case pushesDelivered = "pushes_delivered"
    /// Pushes that failed for good: jobs parked, and tokens APNs called dead (`push.failed`).
    case pushesFailed = "pushes_failed"
    /// Package fetches by devices, answered with the package (200) or "you have the latest" (304).
    case packageFetches = "package_fetches"
}

/// The width of a roll-up bucket; buckets start at whole UTC hours or UTC midnights.
public enum InsightGranularity: String, Sendable, Hashable, CaseIterable {
    /// One bucket per UTC hour.
    case hour
    /// One bucket per UTC day.
    case day

    /// The bucket's width in milliseconds.
    public var milliseconds: Int64 {
        switch self {
        case .hour: 3_600_000
        case .day: 86_400_000
        }
    }

    /// The start of the bucket holding `milliseconds` since 1970 (UTC).
    public func bucketStart(_ milliseconds: Int64) -> Int64 {
        milliseconds - ((milliseconds % self.milliseconds) + self.milliseconds) % self.milliseconds
    }
}

/// A merchant's roll-up counts over a range of buckets, summed over its order types (or the one asked for).
public struct InsightCounts: Sendable, Hashable {
    /// Each bucket's counts by its start; a bucket in which nothing was counted is absent, a metric not counted in
    /// a bucket missing from its dictionary.
    public var buckets: [Date: [InsightMetric: Int64]]
    /// The net registrations before the range: its active registrations at the start.
    public var registrationsBefore: Int64

    /// Counts as read.
    public init(buckets: [Date: [InsightMetric: Int64]], registrationsBefore: Int64) {
        self.buckets = buckets
        self.registrationsBefore = registrationsBefore
    }
}
