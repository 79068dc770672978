import APNs
import CoreMetrics
import Foundation
import OrderPersistence
import Prometheus
import Synchronization

/// Push delivery metrics (swift-metrics, rendered in Prometheus text format at `/metrics`).
final class PushMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let sent: CoreMetrics.Counter
    private let retried: CoreMetrics.Counter
    private let pending: CoreMetrics.Gauge
    private let parked: CoreMetrics.Gauge
    private let latency: CoreMetrics.Timer
    /// One failure counter per reason label, made on first use.
    private let failures = Mutex([String: CoreMetrics.Counter]())

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

    /// Counts one APNs answer received `at`; failures are labelled with APNs' reason or the transport failure.
    func record(_ result: APNsResult, outcome: PushOutcome, enqueuedAt: Date, at: Date) {
        switch result {
        case .delivered:
            sent.increment()
            latency.recordNanoseconds(Int64(max(0, at.timeIntervalSince(enqueuedAt)) * 1e9))
        case .retryable(_, let reason):
            failed(reason.label)
            if outcome == .retrying { retried.increment() }
        case .unregistered: failed(APNsErrorReason.unregistered.label)
        case .badDeviceToken: failed(APNsErrorReason.badDeviceToken.label)
        case .configurationError(_, let reason), .rejected(_, let reason): failed(reason.label)
        }
    }

    /// Counts a push that could not be sent because its order type has no usable APNs credential.
    func recordMissingCredential() {
        failed("NoCredential")
    }

    func queueDepth(pending: Int, parked: Int) {
        self.pending.record(pending)
        self.parked.record(parked)
    }

    /// The Prometheus text exposition of every metric.
    func render() -> [UInt8] {
        registry.emitToBuffer()
    }

    private func failed(_ label: String) {
        // Labels are APNs' fixed vocabulary or our own short words, so there are few counters.
        failures.withLock { counters in
            if let counter = counters[label] { return counter }
            let counter = CoreMetrics.Counter(label: "ordertrack_pushes_failed_total", dimensions: [("reason", label)], factory: factory)
            counters[label] = counter
            return counter
        }
        .increment()
    }
}
