import Foundation

/// Webhook deliveries to merchants: retries, how long an endpoint may fail before it is disabled, and the worker's
/// claims.
public struct WebhookConfiguration: Sendable {
    /// The wait before the first retry; each further retry waits twice as long, up to ``maximumBackoff``.
    public var firstBackoff: Duration = .seconds(30)
    public var maximumBackoff: Duration = .seconds(6 * 3_600)
    /// How long an endpoint's deliveries may keep failing before it is disabled.
    public var failureWindow: Duration = .seconds(3 * 86_400)
    /// How long the previous secret keeps signing beside the new one after a rotation.
    public var rotationOverlap: Duration = .seconds(86_400)
    /// Endpoints a merchant may have.
    public var maximumEndpoints = 16
    /// Endpoints claimed at once; each sends its events one after another.
    public var batchSize = 16
    /// How long a claim on an endpoint lasts, renewed after each delivery: above the client's 10 s, so a live worker
    /// keeps it, and an endpoint whose worker died is taken over after it.
    public var leaseDuration: TimeInterval = 60
    /// Deliveries sent under one claim before the endpoint is released for others' turn.
    public var deliveriesPerClaim = 50
    /// Longest sleep between checks when no local write signals new events (other instances' events, due retries).
    public var pollInterval: Duration = .seconds(1)
    /// Which addresses deliveries may connect to; `nil` is public addresses, and loopback too in development mode.
    package var addressPolicy: (any OutboundAddressPolicy)?
    /// Whether this instance's worker sends deliveries; off only in tests that run workers of their own.
    package var sendsDeliveries = true

    /// The defaults: retries after 30 s, doubling up to 6 h, for 3 days; 16 endpoints a merchant.
    public init() {}

    /// The wait before retry number `attempt` (1 for the first).
    func backoff(afterAttempt attempt: Int) -> Duration {
        let doublings = min(max(attempt - 1, 0), 30)
        return min(firstBackoff * (1 << doublings), maximumBackoff)
    }
}
