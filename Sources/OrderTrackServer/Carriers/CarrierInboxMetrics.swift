import CoreMetrics
import OrderPersistence
import Prometheus

/// The carrier inbox's backlog at `/metrics`, `ordertrack_carrier_events_pending`: events verified and stored, not yet
/// applied. Counted when `/metrics` is read, at most once a second, as the push queue's depth is.
final class CarrierInboxMetrics: Sendable {
    private let store: any CarrierEventInbox
    private let pending: CoreMetrics.Gauge
    private let throttle: RefreshThrottle

    init(registry: PrometheusCollectorRegistry, store: any CarrierEventInbox, clock: ServerClock) {
        self.store = store
        pending = CoreMetrics.Gauge(label: "ordertrack_carrier_events_pending", factory: PrometheusMetricsFactory(registry: registry))
        throttle = RefreshThrottle(clock: clock)
    }

    /// Counts the backlog again, unless it was counted within the second; a database that does not answer leaves the last count.
    func refresh() async {
        guard throttle.take(), let count = try? await store.pendingCarrierEventCount() else { return }
        pending.record(count)
    }
}
