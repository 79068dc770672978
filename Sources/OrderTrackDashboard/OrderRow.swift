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
    /// reader's time zone, so it says which one it uses. Arithmetic on the UTC fields, not a `DateFormatter` per call:
    /// ICU's cost a page of 25 rows about a millisecond of its 10 (bench dashboard) to look up the months' names.
    static func format(_ date: Date, withSeconds: Bool = false) -> String {
        let utc = DateTimeFormat.utcComponents(date)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let time = "\(two(utc.hour)):\(two(utc.minute))" + (withSeconds ? ":\(two(utc.second))" : "")
        return "\(utc.day) \(Self.months[utc.month - 1]) \(utc.year), \(time) UTC"
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
