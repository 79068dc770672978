import APNs
import CoreMetrics
import Foundation
import Prometheus

/// Push delivery metrics (swift-metrics, rendered in Prometheus text format at `/metrics`).
final class PushMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let sent: CoreMetrics.Counter
    private let retried: CoreMetrics.Counter
    private let pending: CoreMetrics.Gauge
    private let parked: CoreMetrics.Gauge
    private let latency: CoreMetrics.Timer

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(30), .seconds(120),
            .seconds(600),
        ]
        self.factory = factory
        sent = CoreMetrics.Counter(label: "ordertrack_pushes_sent_total", factory: factory)
        retried = CoreMetrics.Counter(label: "ordertrack_pushes_retried_total", factory: factory)
        pending = CoreMetrics.Gauge(label: "ordertrack_push_queue_depth", dimensions: [("state", "pending")], factory: factory)
        parked = CoreMetrics.Gauge(label: "ordertrack_push_queue_depth", dimensions: [("state", "parked")], factory: factory)
        latency = CoreMetrics.Timer(label: "ordertrack_push_enqueue_to_delivery_seconds", factory: factory)
    }

    /// Counts one APNs answer; failures are labelled with APNs' reason.
    func record(_ result: APNsResult, outcome: String, enqueuedAt: Date) {
        switch result {
        case .delivered:
            sent.increment()
            latency.recordNanoseconds(Int64(max(0, Date().timeIntervalSince(enqueuedAt)) * 1e9))
        case .retryable(_, let reason):
            failed(reason)
            if outcome == "retrying" { retried.increment() }
        case .unregistered: failed("Unregistered")
        case .badDeviceToken: failed("BadDeviceToken")
        case .configurationError(_, let reason), .rejected(_, let reason): failed(reason)
        }
    }

    func queueDepth(pending: Int, parked: Int) {
        self.pending.record(pending)
        self.parked.record(parked)
    }

    /// The Prometheus text exposition of every metric.
    func render() -> [UInt8] {
        registry.emitToBuffer()
    }

    private func failed(_ reason: String) {
        // Reasons are APNs' fixed vocabulary or our own short words, so label cardinality stays small.
        let label = String(reason.prefix(40)).filter { $0.isLetter || $0.isNumber }
        CoreMetrics.Counter(label: "ordertrack_pushes_failed_total", dimensions: [("reason", label.isEmpty ? "unknown" : label)], factory: factory)
            .increment()
    }
}
