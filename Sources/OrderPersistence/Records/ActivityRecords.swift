import Foundation

/// One event in an order's life as the dashboard's transcript shows it: a change, a device registering or leaving, a
/// device fetching the package. Push attempts have their own log (``PushLogEntry``).
public struct OrderActivity: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The order was stored for the first time (version 1).
        case created
        /// The order changed (a new version).
        case updated
        /// A device registered for the order's pushes, or registered again with another push token.
        case registered
        /// A device unregistered.
        case unregistered
        /// A device fetched the order's package (200) or was told it has the latest (304).
        case fetched
    }

    /// Assigned by the store, increasing; 0 for an entry not stored yet.
    public var id: Int64
    /// The order's type.
    public var orderTypeIdentifier: String
    /// The order's identifier.
    public var orderIdentifier: String
    /// What happened.
    public var kind: Kind
    /// The order's version after a change, or the version a fetch was answered with.
    public var version: Int?
    /// Who made a change (`merchant API`, `dashboard`), when known.
    public var author: String?
    /// The top-level fields a change touched, or the first characters of a device's library identifier; never a push
    /// token or an authentication token.
    public var detail: String?
    /// The HTTP status a fetch was answered with.
    public var status: Int?
    /// When; millisecond precision.
    public var at: Date
    /// The API key that made a change (its id), when an API key made it.
    public var keyID: String?
    /// That key's name then, or who else made the change (`dashboard`).
    public var keyName: String?
    /// The client address a change came from.
    public var address: String?
    /// A change's JSON diff as text: `{"JSON Pointer": {"from", "to"}}`, as OrderModel's `JSONDiff` writes it.
    public var diff: String?
    /// How many fetches the entry stands for: fetches of one version answered alike and written together are one entry
    /// (`at` the first of them); 1 for every other kind.
    public var occurrences: Int

    /// An entry to store.
    public init(
        id: Int64 = 0, orderTypeIdentifier: String, orderIdentifier: String, kind: Kind, version: Int? = nil, author: String? = nil,
        detail: String? = nil, status: Int? = nil, at: Date, keyID: String? = nil, keyName: String? = nil, address: String? = nil,
        diff: String? = nil, occurrences: Int = 1
    ) {
        self.id = id
        self.occurrences = occurrences
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.kind = kind
        self.version = version
        self.author = author
        self.detail = detail
        self.status = status
        self.at = at
        self.keyID = keyID
        self.keyName = keyName
        self.address = address
        self.diff = diff
    }

    /// How much of a device library identifier the activity keeps: enough to tell devices apart on one order.
    public static let deviceIdentifierPrefix = 8

    /// The part of a device library identifier the activity keeps.
    public static func shortDeviceIdentifier(_ identifier: String) -> String {
        identifier.count > deviceIdentifierPrefix ? "\(identifier.prefix(deviceIdentifierPrefix))…" : identifier
    }
}

/// Who changed an order, from where, and how, recorded with the change in its transaction: the audit trail.
public struct ChangeNote: Sendable, Hashable {
    /// Who made the change (`merchant API`, `dashboard`); `nil` when the caller does not say (tools, tests).
    public var author: String?
    /// The top-level fields that differ from the previous version, sorted; empty for a creation.
    public var changedFields: [String]
    /// The id of the API key that made the change, if one did.
    public var keyID: String?
    /// The key's name, or who else made the change.
    public var keyName: String?
    /// The client address the change came from.
    public var address: String?
    /// The change's JSON diff as text.
    public var diff: String?
    /// The JSON Pointers of the values the change touched (the diff's), sorted; its `order.updated` event names them.
    public var changedPaths: [String]
    /// The fulfillments whose status the change moved; those reaching `delivered`, `pickedUp` or `issue` get a
    /// `fulfillment.delivered` or `fulfillment.issue` event. Empty for a creation.
    public var fulfillmentChanges: [FulfillmentStatusChange]

    /// A note for a change.
    public init(
        author: String? = nil, changedFields: [String] = [], keyID: String? = nil, keyName: String? = nil, address: String? = nil,
        diff: String? = nil, changedPaths: [String] = [], fulfillmentChanges: [FulfillmentStatusChange] = []
    ) {
        self.author = author
        self.changedFields = changedFields
        self.keyID = keyID
        self.keyName = keyName
        self.address = address
        self.diff = diff
        self.changedPaths = changedPaths
        self.fulfillmentChanges = fulfillmentChanges
    }
}
