import OrderModel

/// Which shipping fulfillment of an order an event is about.
///
/// The store finds the candidate orders (by tracking number, else by the provider's order reference); this picks the
/// fulfillment inside one, by the same rules whichever way the order was found.
public enum CarrierMatching {
    /// A tracking number as compared: upper-cased, without spaces or hyphens (`1z 999-aa1` is `1Z999AA1`), since
    /// carriers and merchants print the same number differently.
    public static func normalizedTrackingNumber(_ text: String) -> String {
        String(text.uppercased().unicodeScalars.filter { $0 != " " && $0 != "-" })
    }

    /// The shipping fulfillment of `order` that `event` updates, or `nil` when none or several could be meant.
    ///
    /// - The fulfillments with the event's tracking number. Tracking numbers are recycled between carriers, so when
    ///   several have it, the one whose carrier names the event's carrier wins; still several is ambiguous.
    /// - Else, when the order was found by the event's order reference (`byOrderReference`), its one shipping
    ///   fulfillment without a tracking number (the event then fills it in); several such are ambiguous.
    public static func fulfillment(in order: JSONValue, for event: CarrierEvent, byOrderReference: Bool) -> JSONValue? {
        let shipping = (order["fulfillments"]?.arrayValue ?? []).filter { $0["fulfillmentType"]?.stringValue == "shipping" }
        let number = normalizedTrackingNumber(event.trackingNumber)
        let tracked = shipping.filter { $0["trackingNumber"]?.stringValue.map(normalizedTrackingNumber) == number }
        if !tracked.isEmpty { return preferred(tracked, for: event, carrier: { $0["carrier"]?.stringValue }) }
        guard byOrderReference else { return nil }
        let untracked = shipping.filter { $0["trackingNumber"]?.stringValue == nil }
        return untracked.count == 1 ? untracked[0] : nil
    }

    /// The one of several fulfillments with the event's tracking number that it is about: the only one, else the only
    /// one whose carrier names the event's carrier (tracking numbers are recycled between carriers); `nil` when that
    /// leaves none or several. The server uses it across orders, as ``fulfillment(in:for:byOrderReference:)`` does
    /// within one.
    public static func preferred<Candidate>(_ candidates: [Candidate], for event: CarrierEvent, carrier: (Candidate) -> String?) -> Candidate? {
        if candidates.count == 1 { return candidates[0] }
        guard let eventCarrier = event.carrierName?.lowercased() else { return nil }
        let sameCarrier = candidates.filter { candidate in
            carrier(candidate).map { CarrierNames.displayName(for: $0).lowercased() == eventCarrier } ?? false
        }
        return sameCarrier.count == 1 ? sameCarrier[0] : nil
    }
}
