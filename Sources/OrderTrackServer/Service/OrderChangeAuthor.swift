import OrderModel
import OrderPersistence

/// Who changes an order and from where, as the order's transcript and audit trail name it, with the key's limits.
package struct OrderChangeAuthor: Sendable {
    /// The way the change came in.
    package enum Channel: String, Sendable {
        /// The merchant's server (or its partner), through `/api/v1`.
        case merchantAPI = "merchant API"
        /// A person on the dashboard's order page.
        case dashboard
        /// A payment completed through the Apple Pay endpoints.
        case applePay = "Apple Pay"
        /// A carrier tracking webhook, applied by ``CarrierEventWorker``.
        case carrierTracking = "carrier tracking"
    }

    var channel: Channel
    /// The API key that authenticated the change; `nil` on the dashboard.
    var grant: APIKeyGrant?
    /// The client's address (see ``ClientAddress``).
    var address: String?
    /// Whether the change completes an open order once every shipment is delivered (`CarrierUpdateRules.shouldCompleteOrder`):
    /// the carrier's rule, applied after the change passed its key's field rules, which do not let it set the order's status.
    var completesDeliveredOrders = false

    /// A carrier event's author: the provider (`carrier:aftership`) through one of the merchant's connections, limited to
    /// what a `fulfillments:write` key may change; the audit trail names both.
    static func carrier(provider: String, connectionID: String) -> OrderChangeAuthor {
        OrderChangeAuthor(
            channel: .carrierTracking, grant: APIKeyGrant(keyID: connectionID, keyName: "carrier:\(provider)", scopes: [.fulfillmentsWrite]),
            address: nil, completesDeliveredOrders: true)
    }

    /// The audit record of a change: who, from where, which top-level fields, and the diff (``JSONDiff``, with the
    /// order's `authenticationToken` never written into it: a rotation shows as `(redacted)` to `(redacted, new)`);
    /// for an update, also the diff's paths and the fulfillments whose status moved, which its events report.
    func note(from before: JSONValue?, to after: JSONValue) -> ChangeNote {
        let rotated = before.map { $0["authenticationToken"] != after["authenticationToken"] } ?? false
        let redacted = { (document: JSONValue, mark: JSONValue) -> JSONValue in
            var document = document
            if document["authenticationToken"] != nil { document["authenticationToken"] = mark }
            return document
        }
        let diff = JSONDiff(from: before.map { redacted($0, "(redacted)") }, to: redacted(after, rotated ? "(redacted, new)" : "(redacted)"))
        let fields = before.map { OrderService.changedFields(from: $0, to: after) } ?? []
        return ChangeNote(
            author: channel.rawValue, changedFields: fields, keyID: grant?.keyID, keyName: grant?.keyName ?? channel.rawValue, address: address,
            diff: diff.json.serializedString(), changedPaths: before == nil ? [] : diff.changes.map(\.path),
            fulfillmentChanges: before.map { Self.fulfillmentChanges(from: $0, to: after) } ?? [])
    }

    /// The fulfillments of `after` whose status differs from the same fulfillment's (by `fulfillmentIdentifier`) in
    /// `before`, including those `before` lacks.
    static func fulfillmentChanges(from before: JSONValue, to after: JSONValue) -> [FulfillmentStatusChange] {
        let fulfillments = { (document: JSONValue) in document["fulfillments"]?.arrayValue ?? [] }
        var previous: [String: String] = [:]
        for fulfillment in fulfillments(before) {
            if let identifier = fulfillment["fulfillmentIdentifier"]?.stringValue { previous[identifier] = fulfillment["status"]?.stringValue }
        }
        return fulfillments(after).compactMap { fulfillment in
            guard let identifier = fulfillment["fulfillmentIdentifier"]?.stringValue, let status = fulfillment["status"]?.stringValue,
                status != previous[identifier]
            else { return nil }
            return FulfillmentStatusChange(fulfillmentIdentifier: identifier, from: previous[identifier], to: status)
        }
    }
}
