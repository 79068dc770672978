import Foundation
import OrderModel

/// What one carrier event does to one shipping fulfillment.
public enum CarrierFulfillmentDecision: Sendable, Hashable {
    /// The scan is older than the last one applied: an older scan never overwrites a newer state. Change nothing,
    /// and keep the last applied scan time.
    case stale
    /// The scan is current but nothing Wallet shows would change: write no version, send no push; the last applied
    /// scan time becomes this event's.
    case unchanged
    /// Apply these changes; the last applied scan time becomes this event's.
    case update(CarrierFulfillmentUpdate)
}

/// The members of one shipping fulfillment an event changes, ready for the order's merge patch.
public struct CarrierFulfillmentUpdate: Sendable, Hashable {
    /// The fulfillment changed.
    public var fulfillmentIdentifier: String
    /// Changed members of the fulfillment object: new values, or `null` to remove (JSON Merge Patch). Only members a
    /// `fulfillments:write` key may change: `status`, `carrier`, `trackingNumber`, `trackingURL`,
    /// `estimatedDeliveryAt`, `estimatedDeliveryWindowDuration`, `statusDescription`, `shippedAt`, `deliveredAt`.
    public var members: [String: JSONValue]

    /// The new status, when it changes.
    public var status: ShippingFulfillment.Status? {
        members["status"]?.stringValue.flatMap(ShippingFulfillment.Status.init(rawValue:))
    }

    /// The order patch that applies this update: `{"fulfillments": [{"fulfillmentIdentifier": …, …members}]}`.
    public var orderPatch: JSONValue {
        var element = members
        element["fulfillmentIdentifier"] = .string(fulfillmentIdentifier)
        return ["fulfillments": [.object(element)]]
    }
}

/// The "never backwards, never noisy" rules, as pure functions of the fulfillment, the last applied scan time and the
/// event.
///
/// - Events are ordered by their scan time (``CarrierEvent/occurredAt``), not by arrival: one older than the last
///   applied scan is ``CarrierFulfillmentDecision/stale``.
/// - The status moves forward only, along `open < processing < shipped < onTheWay < outForDelivery < delivered`.
/// - `issue` may follow any state, `delivered` included (a return to sender), and a later forward scan clears it.
/// - `cancelled` (EasyPost's cancelled tracker) may follow any state but `delivered`. A fulfillment that is
///   `delivered` or `cancelled` takes no other carrier change: delivered is terminal unless an issue follows, and a
///   cancellation is the merchant's.
/// - `carrier`, `trackingNumber` and `trackingURL` fill gaps and never overwrite the merchant's values (the carrier
///   name may be a localization key). The estimate follows the carrier. `shippedAt` is set on the first move to
///   `shipped` or beyond when unset; `deliveredAt` is the delivery scan's time.
/// - `statusDescription`: an issue's explanation (the provider's text, else a generic sentence), a row's own wording
///   (pickup), or, for the generic format, the sender's text; a status change that brings none removes the old one, so
///   a cleared issue leaves no stale explanation.
/// - A change that changes nothing Wallet shows is ``CarrierFulfillmentDecision/unchanged``.
public enum CarrierUpdateRules {
    /// The description of an issue when the provider gives none.
    public static let defaultIssueDescription = "The carrier reported a problem with this shipment."

    /// Progress along the track; `issue` and `cancelled` are off it.
    public static func rank(_ status: ShippingFulfillment.Status) -> Int? {
        switch status {
        case .open: 0
        case .processing: 1
        case .shipped: 2
        case .onTheWay: 3
        case .outForDelivery: 4
        case .delivered: 5
        case .issue, .cancelled: nil
        }
    }

    /// Whether a carrier event may move a fulfillment from `current` to `target` (a different status).
    public static func allows(from current: ShippingFulfillment.Status, to target: ShippingFulfillment.Status) -> Bool {
        switch (current, target) {
        case (.cancelled, _): false
        case (.delivered, .issue): true
        case (.delivered, _): false
        case (_, .issue), (_, .cancelled), (.issue, _): true
        default: (rank(target) ?? 0) > (rank(current) ?? 0)
        }
    }

    /// What `event` does to `fulfillment` (the order's fulfillment object), given the scan time last applied to it.
    public static func decide(
        fulfillment: JSONValue, lastAppliedScanAt: Date?, event: CarrierEvent, statusMap: CarrierStatusMap
    ) -> CarrierFulfillmentDecision {
        if let lastAppliedScanAt, event.occurredAt < lastAppliedScanAt { return .stale }
        guard let identifier = fulfillment["fulfillmentIdentifier"]?.stringValue, fulfillment["fulfillmentType"]?.stringValue == "shipping" else {
            return .unchanged
        }
        let current = fulfillment["status"]?.stringValue.flatMap(ShippingFulfillment.Status.init(rawValue:)) ?? .open
        let currentDescription = fulfillment["statusDescription"]?.stringValue
        var members: [String: JSONValue] = [:]
        var newStatus: ShippingFulfillment.Status?

        if case .status(let target, let rowDescription) = statusMap.outcome(for: event) {
            let description: String? =
                target == .issue
                ? event.statusDescription ?? rowDescription ?? defaultIssueDescription
                : rowDescription ?? (event.provider == .generic ? event.statusDescription : nil)
            if target != current, allows(from: current, to: target) {
                newStatus = target
                members["status"] = .string(target.rawValue)
                if description != currentDescription { members["statusDescription"] = description.map(JSONValue.string) ?? .null }
            } else if target == current, let description, description != currentDescription {
                members["statusDescription"] = .string(description)
            }
        }

        let after = newStatus ?? current
        // Delivered and cancelled take nothing more, unless this very event moved the fulfillment.
        guard newStatus != nil || (current != .delivered && current != .cancelled) else { return .unchanged }

        func fill(_ key: String, _ value: String?) {
            if let value, fulfillment[key]?.stringValue == nil { members[key] = .string(value) }
        }
        fill("carrier", event.carrierName)
        fill("trackingNumber", event.trackingNumber)
        fill("trackingURL", event.trackingURL?.absoluteString)

        if let estimate = event.estimatedDelivery, after != .delivered, after != .cancelled {
            if !sameInstant(fulfillment["estimatedDeliveryAt"], estimate.at) {
                members["estimatedDeliveryAt"] = .string(DateTimeFormat.formatRFC3339(estimate.at))
            }
            let currentWindow = fulfillment["estimatedDeliveryWindowDuration"]?.stringValue
            if estimate.windowDuration != currentWindow, estimate.windowDuration != nil || members["estimatedDeliveryAt"] != nil {
                members["estimatedDeliveryWindowDuration"] = estimate.windowDuration.map(JSONValue.string) ?? .null
            }
        }
        if let newStatus, (rank(newStatus) ?? 0) >= rank(.shipped)!, fulfillment["shippedAt"]?.stringValue == nil {
            members["shippedAt"] = .string(DateTimeFormat.formatRFC3339(event.occurredAt))
        }
        if newStatus == .delivered {
            members["deliveredAt"] = .string(DateTimeFormat.formatRFC3339(event.occurredAt))
        }
        return members.isEmpty ? .unchanged : .update(CarrierFulfillmentUpdate(fulfillmentIdentifier: identifier, members: members))
    }

    /// Whether the order (order.json as a value) should now become `completed`: it is `open`, it has at least one
    /// shipping fulfillment, every shipping fulfillment is `delivered` or `cancelled` (at least one delivered), every
    /// pickup fulfillment is `pickedUp` or `cancelled`, and no return is open.
    public static func shouldCompleteOrder(_ order: JSONValue) -> Bool {
        guard order["status"]?.stringValue == "open", let fulfillments = order["fulfillments"]?.arrayValue else { return false }
        let shipping = fulfillments.filter { $0["fulfillmentType"]?.stringValue == "shipping" }
        let statuses = shipping.map { $0["status"]?.stringValue }
        guard statuses.contains("delivered"), statuses.allSatisfy({ $0 == "delivered" || $0 == "cancelled" }) else { return false }
        let pickupsDone = fulfillments.filter { $0["fulfillmentType"]?.stringValue == "pickup" }.allSatisfy {
            $0["status"]?.stringValue == "pickedUp" || $0["status"]?.stringValue == "cancelled"
        }
        let returnsClosed = (order["returns"]?.arrayValue ?? []).allSatisfy {
            $0["status"]?.stringValue == "completed" || $0["status"]?.stringValue == "cancelled"
        }
        return pickupsDone && returnsClosed
    }

    /// Whether the RFC 3339 value `stored` is `date` to the millisecond (what the order stores).
    private static func sameInstant(_ stored: JSONValue?, _ date: Date) -> Bool {
        guard let text = stored?.stringValue, let storedDate = DateTimeFormat.parseRFC3339(text) else { return false }
        return (storedDate.timeIntervalSince1970 * 1000).rounded() == (date.timeIntervalSince1970 * 1000).rounded()
    }
}
