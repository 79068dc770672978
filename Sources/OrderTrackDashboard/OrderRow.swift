import Foundation
import OrderModel
import OrderPersistence

/// One row of the orders list: what a person scans for (number, status, where the parcels are, when it changed, how
/// many devices follow it).
struct OrderRow: Sendable {
    var record: OrderRecord
    var orderNumber: String
    var fulfillment: String
    var devices: Int

    /// Parses the stored document (run it on the CPU pool: documents can be large).
    init(record: OrderRecord, devices: [OrderKey: Int]) throws {
        let document = try JSONValue.parse(record.document)
        self.record = record
        orderNumber = document["orderNumber"]?.stringValue ?? record.orderIdentifier
        let statuses = (document["fulfillments"]?.arrayValue ?? []).compactMap { $0["status"]?.stringValue }
        fulfillment = statuses.isEmpty ? "—" : Array(Set(statuses)).sorted().map(WalletPreview.words).joined(separator: ", ")
        self.devices = devices[OrderKey(orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier)] ?? 0
    }

    var templateValues: [String: Any] {
        [
            "href": DashboardRoutes.orderURL(type: record.orderTypeIdentifier, id: record.orderIdentifier),
            "orderNumber": orderNumber, "orderIdentifier": record.orderIdentifier, "orderTypeIdentifier": record.orderTypeIdentifier,
            "statusLabel": WalletPreview.words(record.status ?? "open"),
            "statusTone": WalletPreview.tone(record.status), "fulfillment": fulfillment, "devices": devices,
            "updatedISO": DateTimeFormat.formatRFC3339(record.updatedAt), "updated": Self.format(record.updatedAt),
        ]
    }

    /// `23 Nov 2026, 16:04 UTC` (`16:04:05` with seconds, for events moments apart): the server does not know the
    /// reader's time zone, so it says which one it uses.
    static func format(_ date: Date, withSeconds: Bool = false) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = withSeconds ? "d MMM yyyy, HH:mm:ss 'UTC'" : "d MMM yyyy, HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
