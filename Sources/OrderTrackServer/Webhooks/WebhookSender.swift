import CarrierTracking
import Foundation
import OrderPersistence

/// Sends one event to one endpoint: the events API's JSON for it (with `merchantId` for a platform's endpoint), signed in OrderTrack's generic format with the
/// endpoint's secrets (``GenericEventSigner``, the scheme carrier connections verify), through the client that
/// refuses internal addresses.
struct WebhookSender: Sendable {
    let client: WebhookHTTPClient
    let now: @Sendable () -> Date

    static let userAgent = "OrderTrack-Webhooks/1"

    init(configuration: WebhookConfiguration, isDevelopment: Bool, now: @escaping @Sendable () -> Date) {
        client = WebhookHTTPClient(policy: configuration.addressPolicy ?? PublicAddressPolicy(allowsLoopback: isDevelopment))
        self.now = now
    }

    /// What sending `event` to `endpoint` got; only a 2xx answer is a success.
    func send(_ event: EventRecord, to endpoint: WebhookEndpointRecord) async -> WebhookAttemptResult {
        let body: [UInt8]
        do {
            var json = try EventRoutes.json(event)
            // A platform's endpoint hears every merchant: each delivery says whose event it is.
            if endpoint.platformEndpointID != nil { json["merchantId"] = .string(event.merchantID) }
            body = json.serialized()
        } catch {
            return WebhookAttemptResult(
                eventID: event.id, eventType: event.type, responseStatus: nil, latencyMilliseconds: nil, error: "the event cannot be read: \(error)")
        }
        let date = now()
        let headers = [
            ("Content-Type", "application/json"),
            (
                CarrierWebhookVerifier.Header.generic,
                GenericEventSigner.signatureHeader(body: body, secrets: endpoint.signingSecrets(at: date), at: date)
            ),
            ("OrderTrack-Event-Id", event.id), ("User-Agent", Self.userAgent),
        ]
        guard let url = URL(string: endpoint.url) else {
            return WebhookAttemptResult(
                eventID: event.id, eventType: event.type, responseStatus: nil, latencyMilliseconds: nil, error: "refused: the URL cannot be read")
        }
        let started = ContinuousClock.now
        let outcome = await client.post(url, headers: headers, body: body)
        let latency = Int((ContinuousClock.now - started).seconds * 1000)
        switch outcome {
        case .answered(let status, _) where (200..<300).contains(status):
            return WebhookAttemptResult(eventID: event.id, eventType: event.type, responseStatus: status, latencyMilliseconds: latency, error: nil)
        case .answered(let status, let answer):
            let text = String(decoding: answer.prefix(512), as: UTF8.self)
            return WebhookAttemptResult(
                eventID: event.id, eventType: event.type, responseStatus: status, latencyMilliseconds: latency,
                error: "answered \(status)" + (text.isEmpty ? "" : ": \(text)"))
        case .refused(let reason):
            return WebhookAttemptResult(
                eventID: event.id, eventType: event.type, responseStatus: nil, latencyMilliseconds: nil, error: "refused: \(reason)")
        case .failed(let reason):
            return WebhookAttemptResult(eventID: event.id, eventType: event.type, responseStatus: nil, latencyMilliseconds: latency, error: reason)
        }
    }
}
