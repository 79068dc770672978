import Foundation
import Hummingbird
import NIOCore
import OrderModel
import OrderPersistence

/// The merchant's insights (`GET /api/v1/insights`): hourly or daily series of its orders' life, from the roll-ups
/// the store keeps with each cause, as JSON or (`format=csv`) as a CSV download.
package struct InsightRoutes: Sendable {
    let insights: any InsightStore
    let clock: ServerClock

    /// Adds the route to the merchant API group, behind its authentication.
    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        merchantAPI.get("insights") { request, context -> Response in
            let query = request.uri.queryParameters
            let format = query["format"].map(String.init) ?? "json"
            guard format == "json" || format == "csv" else {
                throw APIError.badRequest("format_invalid", "format must be json or csv", param: "format")
            }
            let range = try InsightRange.parse(
                from: query["from"].map(String.init), to: query["to"].map(String.init), interval: query["interval"].map(String.init),
                orderTypeIdentifier: query["orderTypeIdentifier"].map(String.init), now: clock.date)
            let report = try await InsightReport.load(insights, merchantID: context.merchant.id, range: range)
            guard format == "csv" else { return report.json.response(from: request, context: context) }
            return Self.csvDownload(report)
        }
    }

    /// The report's series as a CSV download named after its interval and first day (`insights-day-2026-11-01.csv`).
    package static func csvDownload(_ report: InsightReport) -> Response {
        let name = "insights-\(report.range.granularity.rawValue)-\(DateTimeFormat.formatRFC3339(report.range.from).prefix(10))"
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: ContentDisposition.value("attachment", name: name, fileExtension: "csv", fallback: "insights"),
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(report.csv.utf8))))
    }
}
