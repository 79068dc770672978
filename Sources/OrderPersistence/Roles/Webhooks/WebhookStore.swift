import Foundation

/// Merchants' webhook endpoints, the worker's claims on them and their delivery log.
///
/// An endpoint follows its merchant's event sequence (``EventLog``) from the event after the one last written when it
/// was created. A worker claims an endpoint with a lease, as the push outbox is claimed: one endpoint's events go out
/// one at a time, in sequence order, and an endpoint whose worker died is claimed again once its lease runs out.
///
/// All methods throw ``OrderStoreError``.
public protocol WebhookStore: Sendable {
    /// Stores a new endpoint, its secret sealed, its cursor at the merchant's last event.
    /// Throws ``OrderStoreError/merchantNotFound(id:)``, or ``OrderStoreError/invalidArgument(name:reason:)`` (`url`)
    /// when the merchant already has `limit` endpoints.
    func addWebhookEndpoint(_ record: WebhookEndpointRecord, limit: Int) async throws -> WebhookEndpointRecord
    /// The merchant's own endpoints, oldest first (never its shares of a platform's endpoints).
    func webhookEndpoints(merchantID: String) async throws -> [WebhookEndpointRecord]
    /// One of the merchant's endpoints; `nil` when it has none with this id (another merchant's included).
    func webhookEndpoint(id: String, merchantID: String) async throws -> WebhookEndpointRecord?
    /// Deletes one of the merchant's endpoints and its log; `false` when it has none with this id.
    func deleteWebhookEndpoint(id: String, merchantID: String) async throws -> Bool
    /// Gives the endpoint a new secret; the current one keeps signing beside it until `previousUntil`.
    func rotateWebhookSecret(id: String, merchantID: String, secret: String, previousUntil: Date) async throws -> WebhookEndpointRecord?
    /// Enables the endpoint and forgets its failures: the event it stopped at is tried again at once.
    func enableWebhookEndpoint(id: String, merchantID: String) async throws -> WebhookEndpointRecord?

    /// Stores a platform's endpoint, its secret sealed, and a share of it for every merchant, each share's cursor at
    /// its merchant's last event; merchants created later get a share (cursor at the start) in their creation's
    /// transaction. Throws ``OrderStoreError/invalidArgument(name:reason:)`` (`url`) when `limit` platform endpoints exist.
    func addPlatformWebhookEndpoint(_ record: PlatformWebhookEndpointRecord, limit: Int) async throws -> PlatformWebhookEndpointRecord
    /// The platform's endpoints, oldest first, with how many merchants each serves and which shares are disabled.
    func platformWebhookEndpoints() async throws -> [PlatformWebhookEndpointRecord]
    /// One platform endpoint, or `nil`.
    func platformWebhookEndpoint(id: String) async throws -> PlatformWebhookEndpointRecord?
    /// Deletes a platform endpoint, its shares and their logs; `false` when there is none with this id.
    func deletePlatformWebhookEndpoint(id: String) async throws -> Bool
    /// Gives the platform endpoint and every share a new secret; the current one signs beside it until `previousUntil`.
    func rotatePlatformWebhookSecret(id: String, secret: String, previousUntil: Date) async throws -> PlatformWebhookEndpointRecord?
    /// Enables every share of the platform endpoint and forgets their failures.
    func enablePlatformWebhookEndpoint(id: String) async throws -> PlatformWebhookEndpointRecord?
    /// The newest `limit` deliveries to any share of the platform endpoint, newest first.
    func platformWebhookDeliveries(id: String, limit: Int) async throws -> [PlatformWebhookDelivery]

    /// Claims up to `limit` enabled endpoints that have events after their cursor and no attempt waiting for later,
    /// for `leaseDuration`. Endpoints another worker holds are skipped.
    func claimWebhookEndpoints(limit: Int, leaseDuration: TimeInterval) async throws -> [WebhookClaim]
    /// The merchant's events after `sequence`, oldest first.
    func events(merchantID: String, afterSequence sequence: Int64, limit: Int) async throws -> [EventRecord]
    /// Records what the worker did under its claim, extending the lease by `leaseDuration` (`nil` frees the endpoint);
    /// `false`, changing nothing, when the claim no longer holds.
    func finishWebhookStep(endpointID: String, claim: Int64, _ step: WebhookStep, leaseDuration: TimeInterval?) async throws -> Bool
    /// Calls `observer` after each commit of this process that appended events, unless the last look for due
    /// endpoints found no enabled one and none was added or enabled here since: the worker's wake-up (other
    /// processes' events and endpoints are found by its poll).
    func observeCommittedEvents(_ observer: @escaping @Sendable () -> Void)
    /// Frees every claim; only for a process that knows it is the database's sole worker (SQLite), after a restart.
    func releaseWebhookLeases() async throws

    /// The endpoint's delivery log, newest first; `after` is the previous page's ``WebhookDeliveryPage/nextCursor``.
    /// Throws ``OrderStoreError/invalidCursor(_:)``.
    func webhookDeliveries(endpointID: String, after cursor: String?, limit: Int) async throws -> WebhookDeliveryPage
    /// One delivery of the endpoint, or `nil`.
    func webhookDelivery(id: String, endpointID: String) async throws -> WebhookDeliveryRecord?
    /// Logs a resend of `delivery`, sent out of band: it changes neither the cursor nor the failure state.
    func logWebhookResend(of delivery: WebhookDeliveryRecord, _ result: WebhookAttemptResult) async throws -> WebhookDeliveryRecord
}
