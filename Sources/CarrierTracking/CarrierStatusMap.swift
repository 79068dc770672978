import OrderModel

/// What a provider status means for Wallet's shipping status.
public enum CarrierStatusOutcome: Sendable, Hashable {
    /// Move to `status`; `description` is the row's own wording (for example "Ready for pickup"), if it has one.
    case status(ShippingFulfillment.Status, description: String?)
    /// The table says this status moves nothing (AfterShip `Expired`, EasyPost `unknown`).
    case noChange
    /// No row knows this status: nothing moves, and the merchant should see it.
    case unmapped
}

/// Provider status (and sub-status) → Wallet `ShippingFulfillment.status`: a default table per provider, overridable
/// per connection. See <doc:StatusMapping> for the tables.
///
/// Keys are the provider's `status`, or `status/subStatus` for a row that applies to one sub-status only (it wins over
/// the status's row); they compare without case, since the providers spell their vocabularies in different cases.
public struct CarrierStatusMap: Sendable, Hashable {
    /// One row's result: a Wallet status (with an optional fixed description), or `nil` for no change.
    public struct Rule: Sendable, Hashable {
        /// The Wallet status, or `nil` for no change.
        public var status: ShippingFulfillment.Status?
        /// The row's own status description.
        public var description: String?

        /// A row.
        public init(_ status: ShippingFulfillment.Status?, description: String? = nil) {
            self.status = status
            self.description = description
        }
    }

    /// The word an override uses for "no status change".
    public static let noChangeWord = "none"
    /// The description the pickup rows give: Wallet's shipping fulfillment has no pickup-point state, so the parcel is
    /// out for delivery with this sentence.
    public static let pickupDescription = "Ready for pickup"
    /// The most overrides one connection may set.
    public static let maximumOverrides = 64

    /// The rows by lower-cased key.
    public private(set) var rules: [String: Rule]

    /// The default table of `provider`.
    public static func defaults(for provider: CarrierProvider) -> CarrierStatusMap {
        CarrierStatusMap(rules: defaultRows(provider))
    }

    /// The default table of `provider` with `overrides` (key → Wallet status name, or `none`) laid over it.
    ///
    /// - Throws: ``CarrierWebhookError/Code/invalidStatusMap`` for a value that is not a Wallet shipping status nor
    ///   `none`, an empty or over-long key, or more than ``maximumOverrides`` entries.
    public init(provider: CarrierProvider, overrides: [String: String]) throws(CarrierWebhookError) {
        guard overrides.count <= Self.maximumOverrides else {
            throw CarrierWebhookError(.invalidStatusMap, "statusMap has \(overrides.count) entries; at most \(Self.maximumOverrides) are allowed")
        }
        var rules = Self.defaultRows(provider)
        for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
            guard !key.isEmpty, key.utf8.count <= 128 else {
                throw CarrierWebhookError(.invalidStatusMap, "statusMap keys must be 1 to 128 bytes (a provider status, or status/subStatus)")
            }
            if value == Self.noChangeWord {
                rules[key.lowercased()] = Rule(nil)
            } else if let status = ShippingFulfillment.Status(rawValue: value) {
                rules[key.lowercased()] = Rule(status)
            } else {
                throw CarrierWebhookError(
                    .invalidStatusMap,
                    "statusMap[\"\(key.prefix(64))\"] is \"\(value.prefix(64))\", which is not a Wallet shipping status; use one of "
                        + ShippingFulfillment.Status.allCases.map(\.rawValue).joined(separator: ", ") + " or \(Self.noChangeWord)")
            }
        }
        self.rules = rules
    }

    private init(rules: [String: Rule]) {
        self.rules = rules
    }

    /// The outcome of a provider status and sub-status: the `status/subStatus` row, else the `status` row.
    public func outcome(status: String, subStatus: String?) -> CarrierStatusOutcome {
        let key = status.lowercased()
        guard let rule = subStatus.flatMap({ rules["\(key)/\($0.lowercased())"] }) ?? rules[key] else { return .unmapped }
        return rule.status.map { .status($0, description: rule.description) } ?? .noChange
    }

    /// The outcome of `event`'s status.
    public func outcome(for event: CarrierEvent) -> CarrierStatusOutcome {
        outcome(status: event.status, subStatus: event.subStatus)
    }

    // The default tables, spec'd from each provider's vocabulary (docs/carrier-tracking.md shows them).
    static func defaultRows(_ provider: CarrierProvider) -> [String: Rule] {
        let pickup = Rule(.outForDelivery, description: pickupDescription)
        let rows: [String: Rule]
        switch provider {
        case .aftership:
            // https://www.aftership.com/docs/tracking/enum/delivery-statuses
            rows = [
                "Pending": Rule(.processing), "InfoReceived": Rule(.processing), "InTransit": Rule(.onTheWay),
                "OutForDelivery": Rule(.outForDelivery), "AvailableForPickup": pickup, "Delivered": Rule(.delivered),
                "AttemptFail": Rule(.issue), "Exception": Rule(.issue), "Expired": Rule(nil),
            ]
        case .easypost:
            // https://docs.easypost.com/docs/trackers (status and status_detail)
            rows = [
                "unknown": Rule(nil), "pre_transit": Rule(.processing), "pre_transit/received_at_origin_facility": Rule(.shipped),
                "pre_transit/departed_origin_facility": Rule(.shipped), "in_transit/received_at_origin_facility": Rule(.shipped),
                "in_transit/departed_origin_facility": Rule(.shipped), "in_transit": Rule(.onTheWay), "out_for_delivery": Rule(.outForDelivery),
                "available_for_pickup": pickup, "delivered": Rule(.delivered), "return_to_sender": Rule(.issue), "failure": Rule(.issue),
                "error": Rule(.issue), "cancelled": Rule(.cancelled),
            ]
        case .shippo:
            // https://docs.goshippo.com/docs/tracking/tracking (tracking_status.status and substatus.code)
            rows = [
                "UNKNOWN": Rule(nil), "PRE_TRANSIT": Rule(.processing), "TRANSIT": Rule(.onTheWay), "TRANSIT/out_for_delivery": Rule(.outForDelivery),
                "TRANSIT/pickup_available": pickup, "DELIVERED": Rule(.delivered), "RETURNED": Rule(.issue), "FAILURE": Rule(.issue),
            ]
        case .shipengine:
            // ShipEngine tracking status codes (https://www.shipengine.com/docs/tracking/) and standardized detail codes.
            rows = [
                "UN": Rule(nil), "NY": Rule(.processing), "AC": Rule(.shipped), "AC/SHIPMENT_CREATED": Rule(.processing),
                "AC/AWAITING_PICKUP_DROP_OFF": Rule(.processing), "IT": Rule(.onTheWay), "IT/OUT_FOR_DELIVERY": Rule(.outForDelivery),
                "SP": pickup, "DE": Rule(.delivered), "EX": Rule(.issue), "AT": Rule(.issue),
            ]
        case .generic:
            // Our own format speaks Wallet's words; a sender with its own vocabulary maps it per connection.
            rows = Dictionary(uniqueKeysWithValues: ShippingFulfillment.Status.allCases.map { ($0.rawValue, Rule($0)) })
        }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.key.lowercased(), $0.value) })
    }
}
