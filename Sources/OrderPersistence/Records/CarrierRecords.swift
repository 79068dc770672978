import Foundation

/// A merchant's connection to a carrier tracking aggregator (or to the generic format), whose webhooks update its orders.
///
/// The store keeps plain values: the server reads ``provider`` and ``statusMap`` into its carrier types.
public struct CarrierConnectionRecord: Sendable, Hashable {
    /// Random and URL-safe, chosen by the caller: the webhook URL names it (`/carriers/{provider}/{id}`).
    public var id: String
    /// The merchant whose orders the connection's events may change.
    public var merchantID: String
    /// The provider's name (`aftership`, `easypost`, `shippo`, `shipengine`, `generic`).
    public var provider: String
    /// The webhook signing secret, sealed with the master key at rest; `nil` for a provider that signs with published
    /// keys (ShipEngine).
    public var secret: String?
    /// Where the provider's verification keys are published, when the connection sets it.
    public var jwksURL: String?
    /// The merchant's overrides of the provider's default status map: provider status to Wallet status.
    public var statusMap: [String: String]?
    /// When the connection was made.
    public var createdAt: Date

    /// A record with every field given.
    public init(
        id: String, merchantID: String, provider: String, secret: String?, jwksURL: String? = nil, statusMap: [String: String]? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.merchantID = merchantID
        self.provider = provider
        self.secret = secret
        self.jwksURL = jwksURL
        self.statusMap = statusMap
        self.createdAt = createdAt
    }
}

/// A verified carrier event as the webhook route hands it to the inbox; its merchant and provider are its connection's.
public struct IncomingCarrierEvent: Sendable, Hashable {
    /// The connection whose signature it carried.
    public var connectionID: String
    /// The provider's event id, or a hash of the body where the provider gives none: a redelivery has the same key.
    public var idempotencyKey: String
    /// The tracking number the event is about, in the form fulfillments are indexed by (the server drops case, spaces
    /// and hyphens; the store drops surrounding whitespace).
    public var trackingNumber: String
    /// The carrier's code, when the provider names it.
    public var carrier: String?
    /// The merchant's order reference the provider carries, for matching when no tracking number is known.
    public var orderReference: String?
    /// When the carrier scanned the parcel: events apply in this order, not in their arrival order.
    public var occurredAt: Date
    /// The normalized event, encoded by the server (JSON).
    public var event: [UInt8]

    /// An event with every field given.
    public init(
        connectionID: String, idempotencyKey: String, trackingNumber: String, carrier: String?, orderReference: String?, occurredAt: Date,
        event: [UInt8]
    ) {
        self.connectionID = connectionID
        self.idempotencyKey = idempotencyKey
        self.trackingNumber = trackingNumber
        self.carrier = carrier
        self.orderReference = orderReference
        self.occurredAt = occurredAt
        self.event = event
    }
}

/// What receiving an event did.
public struct CarrierEventReceipt: Sendable, Hashable {
    /// The inbox row's id: the new one, or the one the first delivery stored.
    public var id: Int64
    /// `false` for a redelivery, which changed nothing.
    public var isNew: Bool

    /// A receipt with both fields given.
    public init(id: Int64, isNew: Bool) {
        self.id = id
        self.isNew = isNew
    }
}

/// Where a carrier event stands.
public enum CarrierEventState: String, Sendable, Hashable, CaseIterable {
    /// Waiting for the worker (or claimed by it, until its lease runs out).
    case pending
    /// Applied to a fulfillment (possibly changing nothing Wallet shows).
    case applied
    /// No fulfillment carries its tracking number yet: applied when one gets it.
    case unmatched
    /// Matched, but not applied: older than the fulfillment's last scan, or a status that maps to no change.
    case ignored
    /// Given up on after repeated failures.
    case failed
}

/// The fulfillment an event was matched to.
public struct CarrierEventMatch: Sendable, Hashable {
    /// The order the fulfillment belongs to.
    public var order: OrderKey
    /// The fulfillment's identifier within the order.
    public var fulfillmentIdentifier: String

    /// A match with both fields given.
    public init(order: OrderKey, fulfillmentIdentifier: String) {
        self.order = order
        self.fulfillmentIdentifier = fulfillmentIdentifier
    }
}

/// A carrier event in the inbox.
public struct CarrierEventRecord: Sendable, Hashable {
    /// The inbox row's id, which orders events by arrival.
    public var id: Int64
    /// The connection it came through.
    public var connectionID: String
    /// The connection's merchant.
    public var merchantID: String
    /// The key that recognises a redelivery.
    public var idempotencyKey: String
    /// The provider's name.
    public var provider: String
    /// The tracking number, trimmed.
    public var trackingNumber: String
    /// The carrier's code, when known.
    public var carrier: String?
    /// The provider's order reference, when given.
    public var orderReference: String?
    /// When the carrier scanned the parcel.
    public var occurredAt: Date
    /// The normalized event as the server encoded it.
    public var event: [UInt8]
    /// Where it stands.
    public var state: CarrierEventState
    /// Claims so far, including the current one: a claim is identified by the event's id and this count.
    public var attempts: Int
    /// Until when the current claim holds, if the event is claimed.
    public var claimedUntil: Date?
    /// When the webhook delivered it.
    public var receivedAt: Date
    /// When the worker finished it.
    public var appliedAt: Date?
    /// What happened, in a few words, for the dashboard.
    public var outcome: String?
    /// The fulfillment it was matched to, if any.
    public var match: CarrierEventMatch?

    /// A record with every field given.
    public init(
        id: Int64, connectionID: String, merchantID: String, idempotencyKey: String, provider: String, trackingNumber: String, carrier: String?,
        orderReference: String?, occurredAt: Date, event: [UInt8], state: CarrierEventState, attempts: Int, claimedUntil: Date?,
        receivedAt: Date, appliedAt: Date?, outcome: String?, match: CarrierEventMatch?
    ) {
        self.id = id
        self.connectionID = connectionID
        self.merchantID = merchantID
        self.idempotencyKey = idempotencyKey
        self.provider = provider
        self.trackingNumber = trackingNumber
        self.carrier = carrier
        self.orderReference = orderReference
        self.occurredAt = occurredAt
        self.event = event
        self.state = state
        self.attempts = attempts
        self.claimedUntil = claimedUntil
        self.receivedAt = receivedAt
        self.appliedAt = appliedAt
        self.outcome = outcome
        self.match = match
    }
}

/// A carrier scan that an order update applies, recorded as the fulfillment's last scan in the update's transaction
/// (``FulfillmentTrackingStore/recordFulfillmentScan(order:fulfillmentIdentifier:at:)`` in one write with the order).
public struct FulfillmentScan: Sendable, Hashable {
    /// The fulfillment the scan is about.
    public var fulfillmentIdentifier: String
    /// When the carrier scanned the parcel.
    public var at: Date
    /// Whether the fulfillment was found by its tracking number. Then the scan is recorded before the order is written,
    /// and a scan at least as new recorded by another writer makes the update fail with
    /// ``OrderStoreError/scanSuperseded(orderTypeIdentifier:orderIdentifier:fulfillmentIdentifier:)``. Otherwise (found
    /// by the provider's order reference) the update gives the fulfillment its tracking number, and the scan is
    /// recorded after it.
    public var wasTracked: Bool

    /// A scan with every field given.
    public init(fulfillmentIdentifier: String, at: Date, wasTracked: Bool) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.at = at
        self.wasTracked = wasTracked
    }
}

/// A fulfillment's tracking number, as an order write declares it.
public struct FulfillmentTrackingEntry: Sendable, Hashable {
    /// The fulfillment's identifier within the order.
    public var fulfillmentIdentifier: String
    /// Its tracking number, compared exactly after trimming: the server gives it in the form events carry it (without
    /// case, spaces or hyphens), so both sides spell it alike.
    public var trackingNumber: String
    /// Its carrier, when the order names one.
    public var carrier: String?

    /// An entry with every field given.
    public init(fulfillmentIdentifier: String, trackingNumber: String, carrier: String?) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.trackingNumber = trackingNumber
        self.carrier = carrier
    }
}

/// A fulfillment that carries a tracking number, with the last scan applied to it.
public struct TrackedFulfillment: Sendable, Hashable {
    /// The order it belongs to.
    public var order: OrderKey
    /// The order's merchant.
    public var merchantID: String
    /// The fulfillment's identifier, tracking number and carrier.
    public var entry: FulfillmentTrackingEntry
    /// When the carrier scanned the parcel for the latest event applied to it; an older scan must not overwrite it.
    public var lastScanAt: Date?

    /// A record with every field given.
    public init(order: OrderKey, merchantID: String, entry: FulfillmentTrackingEntry, lastScanAt: Date?) {
        self.order = order
        self.merchantID = merchantID
        self.entry = entry
        self.lastScanAt = lastScanAt
    }
}

/// A tracked fulfillment with its order as stored when it was read.
public struct TrackedOrder: Sendable, Hashable {
    /// The fulfillment and its last scan.
    public var fulfillment: TrackedFulfillment
    /// Its order.
    public var order: OrderRecord

    /// A record with every field given.
    public init(fulfillment: TrackedFulfillment, order: OrderRecord) {
        self.fulfillment = fulfillment
        self.order = order
    }
}

/// How the worker finished a claimed event.
public struct CarrierEventFinish: Sendable, Hashable {
    /// The event's id.
    public var id: Int64
    /// Its ``CarrierEventRecord/attempts`` as claimed: the claim this finish belongs to.
    public var attempt: Int
    /// Where it ends (not ``CarrierEventState/pending``).
    public var state: CarrierEventState
    /// What happened, in a few words, for the dashboard.
    public var outcome: String
    /// The fulfillment it was matched to, if any.
    public var match: CarrierEventMatch?
    /// Unmatched: how many of the merchant's fulfillments had its tracking number when the worker looked (none, or
    /// several it could not tell apart).
    public var candidates: Int
    /// Applied without a change to the order: the scan time recorded on the matched fulfillment with the finish
    /// (``FulfillmentTrackingStore/recordFulfillmentScan(order:fulfillmentIdentifier:at:)``), unless a later one is.
    public var scannedAt: Date?

    /// A finish with every field given.
    public init(
        id: Int64, attempt: Int, state: CarrierEventState, outcome: String, match: CarrierEventMatch? = nil, candidates: Int = 0,
        scannedAt: Date? = nil
    ) {
        self.id = id
        self.attempt = attempt
        self.state = state
        self.outcome = outcome
        self.match = match
        self.candidates = candidates
        self.scannedAt = scannedAt
    }
}
