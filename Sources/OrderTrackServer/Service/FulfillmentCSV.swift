import Foundation
import OrderModel
import WireFormats

/// A spreadsheet of fulfillment updates (a warehouse's day of shipments), read into the requests of ``BulkUpdates``, so
/// each row is validated, versioned, audited and pushed as a PATCH of that fulfillment is.
///
/// The first line names the columns, in any order and spelling case (`Order number`, `order_number` and `orderNumber`
/// are one column). Each row names its order by `orderNumber` or `orderIdentifier` (and `orderTypeIdentifier` when the
/// merchant has several order types); the fulfillment by `fulfillmentIdentifier`, or else the one already carrying the
/// row's tracking number, or else the order's only shipping fulfillment. An empty cell leaves its field as it is.
package enum FulfillmentCSV {
    /// The columns a file may have, by the member of the fulfillment each one sets (`nil`: it names the order or the
    /// fulfillment).
    static let columns: [(name: String, member: String?)] = [
        ("orderNumber", nil), ("orderIdentifier", nil), ("orderTypeIdentifier", nil), ("fulfillmentIdentifier", nil),
        ("trackingNumber", "trackingNumber"), ("carrier", "carrier"), ("status", "status"), ("trackingURL", "trackingURL"),
        ("statusDescription", "statusDescription"), ("estimatedDeliveryAt", "estimatedDeliveryAt"), ("shippedAt", "shippedAt"),
        ("deliveredAt", "deliveredAt"),
    ]

    /// The column names as the documentation and the page list them.
    package static var columnNames: [String] { columns.map(\.name) }

    /// Bounds of one file: as many rows as a bulk request has lines, fields as long as any a fulfillment takes.
    static let limits = CSV.Limits(records: BulkUpdates.maximumLines + 1, fieldsPerRecord: 32, fieldBytes: 4096)

    /// The requests of a CSV file, each with its line number; a row that cannot be one fails alone.
    ///
    /// - Throws: ``OrderTrackError`` (`bulk_line_invalid`) when the file is not CSV, has no header naming the order
    ///   column, names a column twice or a column that does not exist, or has more rows than a bulk update takes.
    package static func requests(_ bytes: [UInt8]) throws(OrderTrackError) -> [BulkUpdates.ParsedLine] {
        let records: [CSV.Record]
        do throws(CSV.SyntaxError) {
            records = try CSV.records(bytes, limits: limits)
        } catch {
            throw OrderTrackError(.invalidBulkLine, "the file is not CSV: \(error)", field: "csv")
        }
        guard let header = records.first else {
            throw OrderTrackError(.invalidBulkLine, "the file is empty; its first line names the columns, such as \(example)", field: "csv")
        }
        var positions: [Int: (name: String, member: String?)] = [:]
        for (index, title) in header.fields.enumerated() {
            let key = normalized(title)
            if key.isEmpty { continue }
            guard let column = columns.first(where: { normalized($0.name) == key }) else {
                throw OrderTrackError(
                    .invalidBulkLine, "\(title.prefix(64)) is not a column of fulfillment updates; use \(columnNames.joined(separator: ", "))",
                    field: "csv")
            }
            guard !positions.values.contains(where: { $0.name == column.name }) else {
                throw OrderTrackError(.invalidBulkLine, "the column \(column.name) is named twice", field: "csv")
            }
            positions[index] = column
        }
        let named = Set(positions.values.map(\.name))
        guard named.contains("orderNumber") || named.contains("orderIdentifier") else {
            throw OrderTrackError(
                .invalidBulkLine, "the first line names the columns and one of them is orderNumber or orderIdentifier, such as \(example)",
                field: "csv")
        }
        return records.dropFirst().map { record in
            (
                record.line,
                Result { () throws(OrderTrackError) -> BulkUpdates.Request in
                    try request(record, positions: positions, width: header.fields.count)
                }
            )
        }
    }

    private static let example = "orderNumber,trackingNumber,carrier,status"

    /// A row as the request its cells ask for.
    private static func request(_ record: CSV.Record, positions: [Int: (name: String, member: String?)], width: Int) throws(OrderTrackError)
        -> BulkUpdates.Request
    {
        // A cell beyond the named columns would be dropped unseen.
        guard record.fields.dropFirst(width).allSatisfy(\.isEmpty) else {
            throw OrderTrackError(
                .invalidBulkLine, "the row has \(record.fields.count) cells and the first line names \(width) columns", field: "csv")
        }
        var cells: [String: String] = [:]
        var members: [String: JSONValue] = [:]
        for (index, cell) in record.fields.enumerated() {
            let value = cell.trimmingCharacters(in: .whitespaces)
            guard let column = positions[index], !value.isEmpty else { continue }
            cells[column.name] = value
            guard let member = column.member else { continue }
            members[member] = .string(member == "status" ? status(value) : value)
        }
        for name in ["orderIdentifier", "orderTypeIdentifier", "fulfillmentIdentifier"] {
            if let value = cells[name], !Identifiers.isValid(value) {
                throw OrderTrackError(.invalidBulkLine, "\(name) must be \(Identifiers.rule)", field: name)
            }
        }
        guard (cells["orderNumber"] == nil) != (cells["orderIdentifier"] == nil) else {
            throw OrderTrackError(.invalidBulkLine, "name the order by its orderNumber or by its orderIdentifier (one of them)", field: "orderNumber")
        }
        guard !members.isEmpty else {
            throw OrderTrackError(.invalidBulkLine, "the row changes nothing: every fulfillment cell is empty", field: "csv")
        }
        return BulkUpdates.Request(
            orderTypeIdentifier: cells["orderTypeIdentifier"], orderIdentifier: cells["orderIdentifier"], orderNumber: cells["orderNumber"],
            patch: .object(members), allowedVersions: nil,
            fulfillment: BulkUpdates.FulfillmentTarget(fulfillmentIdentifier: cells["fulfillmentIdentifier"], trackingNumber: cells["trackingNumber"])
        )
    }

    /// A column title or a status as people type them: `On the way`, `on_the_way` and `onTheWay` read alike.
    static func normalized(_ text: String) -> String {
        String(text.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// Wallet's spelling of a shipping status typed in words (`Out for delivery` is `outForDelivery`); text that is no
    /// status stays as typed, for the order's validation to refuse with the list.
    static func status(_ text: String) -> String {
        OrderSchema.shippingStatuses.first { normalized($0) == normalized(text) } ?? text
    }
}
