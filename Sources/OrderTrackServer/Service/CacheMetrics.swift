import CoreMetrics
import OrderPersistence
import Prometheus

/// Hits, misses and invalidations of the in-memory order records and signed packages (rendered at `/metrics`).
///
/// An invalidation is a copy dropped because a change was announced: with PostgreSQL, by any instance. With PostgreSQL
/// an order hit is a kept record whose version the database confirmed.
final class CacheMetrics: Sendable {
    private let orderHits: CoreMetrics.Counter
    private let orderMisses: CoreMetrics.Counter
    private let orderInvalidations: CoreMetrics.Counter
    private let packageHits: CoreMetrics.Counter
    private let packageMisses: CoreMetrics.Counter
    private let packageInvalidations: CoreMetrics.Counter
    private let interruptions: CoreMetrics.Counter
    private let following: CoreMetrics.Gauge
    private let orderAnnouncements: CoreMetrics.Counter
    private let orderTypeAnnouncements: CoreMetrics.Counter

    init(registry: PrometheusCollectorRegistry) {
        let factory = PrometheusMetricsFactory(registry: registry)
        func counter(_ name: String, _ cache: String) -> CoreMetrics.Counter {
            CoreMetrics.Counter(label: "ordertrack_cache_\(name)_total", dimensions: [("cache", cache)], factory: factory)
        }
        orderHits = counter("hits", "orders")
        orderMisses = counter("misses", "orders")
        orderInvalidations = counter("invalidations", "orders")
        packageHits = counter("hits", "packages")
        packageMisses = counter("misses", "packages")
        packageInvalidations = counter("invalidations", "packages")
        interruptions = CoreMetrics.Counter(label: "ordertrack_change_feed_interruptions_total", factory: factory)
        following = CoreMetrics.Gauge(label: "ordertrack_change_feed_following", factory: factory)
        func announcements(_ kind: String) -> CoreMetrics.Counter {
            CoreMetrics.Counter(label: "ordertrack_change_feed_announcements_total", dimensions: [("kind", kind)], factory: factory)
        }
        orderAnnouncements = announcements("order")
        orderTypeAnnouncements = announcements("order_type")
    }

    func orderHit() { orderHits.increment() }
    func orderMiss() { orderMisses.increment() }
    func orderInvalidated() { orderInvalidations.increment() }
    func packageHit() { packageHits.increment() }
    func packageMiss() { packageMisses.increment() }
    func packagesInvalidated(_ count: Int) { packageInvalidations.increment(by: count) }
    /// Whether this instance hears every change now (1) or not (0).
    func feedFollowing(_ isFollowing: Bool) {
        following.record(isFollowing ? 1 : 0)
        if !isFollowing { interruptions.increment() }
    }
    /// An announced change was applied to every in-memory copy. Announcements arrive in commit order, so once this
    /// counts one, every change committed before it has been applied too.
    func announcementApplied(_ event: StoreChangeEvent) {
        switch event {
        case .order: orderAnnouncements.increment()
        case .orderType: orderTypeAnnouncements.increment()
        case .following, .interrupted: break
        }
    }
}
