import Foundation
import OrderModel
import OrderPersistence
import OrderTrackServer

/// The fulfillment updates page: a warehouse's CSV (order number, tracking number, carrier, status, …) applied row by
/// row through ``BulkUpdates``, the path of `POST /api/v1/orders/bulk` and so of every PATCH, with each row's result.
struct FulfillmentsPage: Sendable {
    static let path = "/dashboard/fulfillments"
    /// The largest form the page posts, as large as a merchant API body by default: 10,000 rows of a hundred bytes,
    /// form-encoded, fit.
    static let maximumFormSize = 4 * 1024 * 1024

    let bulk: BulkUpdates

    /// The page's values before any file: the columns it reads.
    func values() -> [String: Any] {
        ["script": "fulfillments.js", "columns": FulfillmentCSV.columnNames.joined(separator: ", "), "csv": ""]
    }

    /// Applies the posted CSV (the `csv` field) and answers the page with each row's result in file order, or, for a
    /// file that cannot be read, the page with why (and the text kept for correcting).
    func apply(form: DashboardForm, merchant: MerchantRecord, author: OrderChangeAuthor) async throws -> (values: [String: Any], failed: Bool) {
        var values = values()
        let text = form["csv"] ?? ""
        let requests: [BulkUpdates.ParsedLine]
        do throws(OrderTrackError) {
            requests = try FulfillmentCSV.requests(Array(text.utf8))
        } catch {
            values["csv"] = text
            values["formError"] = error.reason
            return (values, true)
        }
        var outcomes: [BulkUpdates.Outcome] = []
        try await bulk.apply(requests, merchant: merchant, author: author) { outcomes.append($0) }
        let rows = outcomes.sorted { $0.line < $1.line }.map(Self.row)
        let count = { (result: String) in rows.count { $0["result"] as? String == result } }
        values["results"] = rows
        values["hasResults"] = true
        values["summary"] =
            "\(count("applied")) applied, \(count("unchanged")) unchanged, \(count("failed")) failed, of \(rows.count) \(rows.count == 1 ? "row" : "rows")."
        values["allApplied"] = count("failed") == 0
        return (values, false)
    }

    /// One row's result as the table shows it, from the JSON the bulk API answers for a line.
    static func row(_ outcome: BulkUpdates.Outcome) -> [String: Any] {
        let json = BulkRoutes.json(outcome)
        let result = json["result"]?.stringValue ?? "failed"
        var row: [String: Any] = ["line": outcome.line, "result": result]
        switch result {
        case "applied", "unchanged":
            let type = json["orderTypeIdentifier"]?.stringValue ?? ""
            let id = json["orderIdentifier"]?.stringValue ?? ""
            row["orderHref"] = DashboardRoutes.orderURL(type: type, id: id)
            row["orderIdentifier"] = id
            row["label"] = result == "applied" ? "Applied" : "Unchanged"
            row["tone"] = result == "applied" ? "green" : "grey"
            let version = outcome.appliedVersion.map { "version \($0)" } ?? ""
            let warnings = json["warnings"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
            row["detail"] = result == "applied" ? "Now at \(version); devices are notified." : "Already so at \(version)."
            row["warnings"] = warnings.isEmpty ? false : "Warnings: " + warnings.joined(separator: "; ")
        default:
            let error = json["error"] ?? .null
            row["label"] = "Failed"
            row["tone"] = "red"
            var detail = error["message"]?.stringValue ?? "failed"
            if let problems = error["problems"]?.arrayValue, !problems.isEmpty {
                let described = problems.compactMap { problem in
                    problem["message"]?.stringValue.map { "\(problem["path"]?.stringValue ?? ""): \($0)" }
                }
                detail += ": " + described.joined(separator: "; ")
            }
            row["detail"] = detail
            row["field"] = error["param"]?.stringValue ?? false
        }
        return row
    }
}

extension BulkUpdates.Outcome {
    /// The order's version after the row, when it applied or changed nothing.
    fileprivate var appliedVersion: Int? { try? result.get().update.record.version }
}
