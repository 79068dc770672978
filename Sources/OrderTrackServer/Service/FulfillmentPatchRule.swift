import OrderModel

/// What a key with `fulfillments:write` but not `orders:write` may change: the tracking fields of the order's existing
/// fulfillments, a carrier's or a logistics partner's job, and nothing else (not the order's status, payment, line
/// items, recipients or the fulfillments themselves). `updatedAt` moves with every change and is the server's.
enum FulfillmentPatchRule {
    /// Fields of a shipping fulfillment (`fulfillmentType` `shipping`) a partner may set or clear.
    static let shippingFields: Set = [
        "status", "statusDescription", "carrier", "trackingNumber", "trackingURL", "shippedAt", "estimatedDeliveryAt",
        "estimatedDeliveryWindowDuration", "deliveredAt",
    ]
    /// Fields of a pickup fulfillment (`fulfillmentType` `pickup`) a partner may set or clear: where the pickup stands,
    /// its window and collection time, and the code to collect with.
    static let pickupFields: Set = ["status", "statusDescription", "pickupAt", "pickupWindowDuration", "pickedUpAt", "barcode"]

    /// The first change a fulfillments-only key may not make, as an error naming the path and the rule; `nil` when
    /// every change is allowed. `before` is the stored order, so a fulfillment's kind is the stored one.
    static func violation(_ diff: JSONDiff, before: JSONValue) -> OrderTrackError? {
        for change in diff.changes where change.path != "/updatedAt" {
            let parts = change.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            let allowed: Bool
            if parts.count >= 3, parts.first == "fulfillments", let index = Int(parts[parts.startIndex + 1]),
                let fulfillment = before["fulfillments"]?.arrayValue.flatMap({ $0.indices.contains(index) ? $0[index] : nil })
            {
                let field = String(parts[parts.startIndex + 2])
                let fields = fulfillment["fulfillmentType"]?.stringValue == "pickup" ? pickupFields : shippingFields
                allowed = fields.contains(field)
            } else {
                allowed = false
            }
            if !allowed {
                return OrderTrackError(
                    .changeNotAllowed,
                    "\(change.path) cannot be changed with this API key: fulfillments:write (without orders:write) may change only "
                        + "an existing fulfillment's \(shippingFields.sorted().joined(separator: ", ")) (shipping) or "
                        + "\(pickupFields.sorted().joined(separator: ", ")) (pickup)",
                    field: change.path)
            }
        }
        return nil
    }
}
