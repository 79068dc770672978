import Foundation

/// Whether an endpoint is sent events.
public enum WebhookEndpointStatus: String, Sendable, Hashable, CaseIterable {
    case enabled
    /// Disabled after days of failed deliveries; its cursor waits where it stopped until it is enabled again.
    case disabled
}

/// A merchant's webhook endpoint: where its events are POSTed, signed with the endpoint's secret.
public struct WebhookEndpointRecord: Sendable, Hashable {
    /// `we_` and 24 random hex digits.
    public var id: String
    /// The merchant whose events it is sent.
    public var merchantID: String
    /// The https URL events are POSTed to.
    public var url: String
    /// The event types sent (``EventType`` raw values), or `["*"]` for all.
    public var events: [String]
    /// The merchant's note about it.
    public var description: String?
    /// The signing secret (`whsec_…`), sealed with the master key at rest.
    public var secret: String
    /// The secret before the last rotation, which keeps signing beside the new one until ``previousSecretUntil``.
    public var previousSecret: String?
    /// Until when ``previousSecret`` signs too.
    public var previousSecretUntil: Date?
    /// Whether it is sent events.
    public var status: WebhookEndpointStatus
    /// Why it was disabled: how long deliveries failed and the last failure.
    public var disabledReason: String?
    /// When it was made.
    public var createdAt: Date
    /// The last of the merchant's event sequence numbers the endpoint is done with (sent, or not of its types).
    public var cursor: Int64
    /// Failed attempts at the event after the cursor.
    public var attempts: Int
    /// When the current run of failures began; `nil` while deliveries succeed.
    public var failingSince: Date?
    /// When the next attempt is due after a failure.
    public var nextAttemptAt: Date?
    /// For the merchant's share of a platform's endpoint (``PlatformWebhookEndpointRecord``), that endpoint's id:
    /// such a row is the platform's, never listed to the merchant, and its deliveries name the merchant.
    public var platformEndpointID: String?

    /// A record with every field given; a new endpoint's worker state (cursor, attempts) is set by the store.
    public init(
        id: String, merchantID: String, url: String, events: [String], description: String?, secret: String, previousSecret: String? = nil,
        previousSecretUntil: Date? = nil, status: WebhookEndpointStatus = .enabled, disabledReason: String? = nil, createdAt: Date,
        cursor: Int64 = 0, attempts: Int = 0, failingSince: Date? = nil, nextAttemptAt: Date? = nil, platformEndpointID: String? = nil
    ) {
        self.id = id
        self.merchantID = merchantID
        self.url = url
        self.events = events
        self.description = description
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretUntil = previousSecretUntil
        self.status = status
        self.disabledReason = disabledReason
        self.createdAt = createdAt
        self.cursor = cursor
        self.attempts = attempts
        self.failingSince = failingSince
        self.nextAttemptAt = nextAttemptAt
        self.platformEndpointID = platformEndpointID
    }

    /// Whether the endpoint takes events of `type`.
    public func accepts(_ type: EventType) -> Bool {
        events.contains("*") || events.contains(type.rawValue)
    }

    /// The secrets a delivery at `date` is signed with: the current one, and the previous one while it overlaps.
    public func signingSecrets(at date: Date) -> [String] {
        guard let previousSecret, let until = previousSecretUntil, date < until else { return [secret] }
        return [secret, previousSecret]
    }
}

/// A platform's endpoint: sent the events of every merchant of the instance, those created later included, each
/// delivery naming its merchant. Made by the instance's operator (`ordertrack webhooks create --all-merchants`).
///
/// Each merchant's share is a ``WebhookEndpointRecord`` of its own (``WebhookEndpointRecord/platformEndpointID``) with
/// its own cursor, so each merchant's events arrive in order and one merchant's failing deliveries hold back no other's.
public struct PlatformWebhookEndpointRecord: Sendable, Hashable {
    /// `wep_` and 16 random URL-safe characters.
    public var id: String
    /// The https URL events are POSTed to.
    public var url: String
    /// The event types sent (``EventType`` raw values), or `["*"]` for all.
    public var events: [String]
    /// The operator's note about it.
    public var description: String?
    /// The signing secret (`whsec_…`), sealed with the master key at rest.
    public var secret: String
    /// The secret before the last rotation, which keeps signing beside the new one until ``previousSecretUntil``.
    public var previousSecret: String?
    /// Until when ``previousSecret`` signs too.
    public var previousSecretUntil: Date?
    /// When it was made.
    public var createdAt: Date
    /// How many merchants it is sent events of (set by the store).
    public var merchants: Int
    /// The merchants whose share is disabled after days of failed deliveries, with why (set by the store).
    public var disabledMerchants: [String: String]

    /// A record with every field given.
    public init(
        id: String, url: String, events: [String], description: String?, secret: String, previousSecret: String? = nil,
        previousSecretUntil: Date? = nil, createdAt: Date, merchants: Int = 0, disabledMerchants: [String: String] = [:]
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.description = description
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretUntil = previousSecretUntil
        self.createdAt = createdAt
        self.merchants = merchants
        self.disabledMerchants = disabledMerchants
    }
}

/// One entry of a platform endpoint's delivery log: a delivery to one merchant's share of it.
public struct PlatformWebhookDelivery: Sendable, Hashable {
    /// The merchant whose share it was sent to.
    public var merchantID: String
    /// The delivery, as the share's own log keeps it.
    public var delivery: WebhookDeliveryRecord

    /// A value with every field given.
    public init(merchantID: String, delivery: WebhookDeliveryRecord) {
        self.merchantID = merchantID
        self.delivery = delivery
    }
}

/// An endpoint as a worker claimed it: ``claim`` identifies the claim, so a worker whose lease ran out cannot finish
/// what another worker claimed since.
public struct WebhookClaim: Sendable, Hashable {
    /// The endpoint as claimed.
    public var endpoint: WebhookEndpointRecord
    /// The claim count after this claim: the claim it identifies.
    public var claim: Int64

    /// A value with every field given.
    public init(endpoint: WebhookEndpointRecord, claim: Int64) {
        self.endpoint = endpoint
        self.claim = claim
    }
}

/// Where a delivery stands.
public enum WebhookDeliveryStatus: String, Sendable, Hashable, CaseIterable {
    /// Failed so far; tried again at the endpoint's next attempt.
    case pending
    case succeeded
    /// Given up: the endpoint was disabled, or a resend failed.
    case failed
}

/// What one attempt at sending an event got.
public struct WebhookAttemptResult: Sendable, Hashable {
    /// The event's id.
    public var eventID: String
    /// The event's type.
    public var eventType: EventType
    /// The HTTP status the endpoint answered, if it answered.
    public var responseStatus: Int?
    /// From sending to the end of the answer, in milliseconds.
    public var latencyMilliseconds: Int?
    /// Why it failed (a status, a timeout, a refused address), with the start of the answer's body.
    public var error: String?

    /// A value with every field given.
    public init(eventID: String, eventType: EventType, responseStatus: Int?, latencyMilliseconds: Int?, error: String?) {
        self.eventID = eventID
        self.eventType = eventType
        self.responseStatus = responseStatus
        self.latencyMilliseconds = latencyMilliseconds
        self.error = error
    }
}

/// What the worker did with its claim on an endpoint.
public enum WebhookStep: Sendable, Hashable {
    /// Events up to this sequence are not of the endpoint's types: the cursor moves past them.
    case skipped(through: Int64)
    /// The event at this sequence was delivered: the cursor moves to it and the failure state resets.
    case succeeded(sequence: Int64, WebhookAttemptResult)
    /// The attempt failed: tried again at `retryAt`, or, when `nil`, the endpoint is disabled with `disabledReason`.
    case failed(WebhookAttemptResult, retryAt: Date?, disabledReason: String?)
}

/// One entry of an endpoint's delivery log.
public struct WebhookDeliveryRecord: Sendable, Hashable {
    /// `whd_` and 24 random hex digits.
    public var id: String
    /// The endpoint it was sent to.
    public var endpointID: String
    /// Its position in the endpoint's log: what the list's cursor continues after.
    public var number: Int64
    /// The event's id.
    public var eventID: String
    /// The event's type.
    public var eventType: String
    /// For a resend, the delivery it sent again.
    public var resendOf: String?
    /// Whether it is sent events.
    public var status: WebhookDeliveryStatus
    /// Attempts so far.
    public var attempts: Int
    /// The last attempt's HTTP status, if the endpoint answered.
    public var responseStatus: Int?
    /// From sending to the end of the answer, in milliseconds.
    public var latencyMilliseconds: Int?
    /// Why the last attempt failed, if it did.
    public var error: String?
    /// When it was made.
    public var createdAt: Date
    /// When the last attempt ended.
    public var updatedAt: Date

    /// A value with every field given.
    public init(
        id: String, endpointID: String, number: Int64, eventID: String, eventType: String, resendOf: String?, status: WebhookDeliveryStatus,
        attempts: Int, responseStatus: Int?, latencyMilliseconds: Int?, error: String?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.endpointID = endpointID
        self.number = number
        self.eventID = eventID
        self.eventType = eventType
        self.resendOf = resendOf
        self.status = status
        self.attempts = attempts
        self.responseStatus = responseStatus
        self.latencyMilliseconds = latencyMilliseconds
        self.error = error
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A page of an endpoint's delivery log, newest first.
public struct WebhookDeliveryPage: Sendable {
    /// The page's deliveries, newest first.
    public var deliveries: [WebhookDeliveryRecord]
    /// Pass as `after` to continue with older deliveries; `nil` when this page is the last.
    public var nextCursor: String?

    /// A value with every field given.
    public init(deliveries: [WebhookDeliveryRecord], nextCursor: String?) {
        self.deliveries = deliveries
        self.nextCursor = nextCursor
    }
}
