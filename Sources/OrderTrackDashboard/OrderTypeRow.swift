import Foundation
import OrderPersistence
import OrderSigning

/// One of the merchant's order types as the order types page lists it: whose certificate signs its packages, until
/// when, and how its pushes authenticate.
struct OrderTypeRow: Sendable {
    /// How long before its certificate expires an order type is flagged: time to renew it in the developer account.
    static let expiryWarning: TimeInterval = 30 * 86_400

    var record: OrderTypeRecord
    /// `nil` when the configured identity does not load (the page says so instead of failing).
    var identity: SigningIdentity?
    /// Whether creates that name no order type get this one.
    var isDefault: Bool

    func templateValues(now: Date) -> [String: Any] {
        var values: [String: Any] = [
            "orderTypeIdentifier": record.orderTypeIdentifier,
            "isDefault": isDefault,
            "apnsCredential": record.apnsToken == nil ? "Order Type ID certificate" : "Token key (.p8), key ID \(record.apnsToken?.keyID ?? "")",
        ]
        guard let identity else {
            values["subject"] = "The signing identity does not load"
            values["expiry"] = "—"
            values["expiryLabel"] = "Broken"
            values["expiryTone"] = "red"
            return values
        }
        let remaining = identity.notValidAfter.timeIntervalSince(now)
        values["subject"] = String(describing: identity.certificate.subject)
        values["expiry"] = OrderRow.format(identity.notValidAfter)
        let days = Int(remaining / 86_400)
        let (label, tone) =
            remaining <= 0
            ? ("Expired", "red")
            : remaining < Self.expiryWarning
                ? (days == 0 ? "Expires today" : "Expires in \(days) day\(days == 1 ? "" : "s")", "amber") : ("Valid", "green")
        values["expiryLabel"] = label
        values["expiryTone"] = tone
        return values
    }
}
