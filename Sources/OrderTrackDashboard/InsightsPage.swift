import Foundation
import OrderPersistence
import OrderTrackServer

/// The Insights page: the merchant's series of ``InsightReport`` for a chosen range, drawn as server-side SVG charts
/// (``InsightChart``) with the figures also as a table, and the same series as a CSV download.
struct InsightsPage: Sendable {
    static let path = "/dashboard/insights"

    /// The ranges the page offers, by their query value; the first is the default.
    static let ranges: [(value: String, label: String, count: Int64, granularity: InsightGranularity)] = [
        ("30d", "Last 30 days", 30, .day), ("7d", "Last 7 days", 7, .day), ("90d", "Last 90 days", 90, .day),
        ("48h", "Last 48 hours, hourly", 48, .hour),
    ]

    let store: any InsightStore

    /// The range a query value names (the default for any other).
    static func range(_ value: String?, now: Date) -> (value: String, range: InsightRange) {
        let chosen = ranges.first { $0.value == value } ?? ranges[0]
        return (chosen.value, InsightRange.last(chosen.count, of: chosen.granularity, now: now))
    }

    func report(merchantID: String, range value: String?, now: Date) async throws -> (value: String, report: InsightReport) {
        let (chosen, range) = Self.range(value, now: now)
        return (chosen, try await InsightReport.load(store, merchantID: merchantID, range: range))
    }

    /// The page's values: the range form, the totals, the charts and the table.
    func values(merchantID: String, range value: String?, now: Date) async throws -> [String: Any] {
        let (chosen, report) = try await report(merchantID: merchantID, range: value, now: now)
        let hourly = report.range.granularity == .hour
        let short = Self.formatter(hourly ? "MMM d HH:mm" : "MMM d")
        let long = Self.formatter(hourly ? "yyyy-MM-dd HH:mm" : "yyyy-MM-dd")
        let labels = report.series.map { short.string(from: $0.start) }
        let series = { (name: String, values: KeyPath<InsightPoint, Int64>) in
            InsightChart.Series(name: name, values: report.series.map { $0[keyPath: values] })
        }
        let describe = { (series: InsightChart.Series) -> String in
            let peak = series.values.indices.max { series.values[$0] < series.values[$1] }
            let most = peak.map { series.values[$0] > 0 ? " (most: \(series.values[$0]) on \(labels[$0]))" : "" } ?? ""
            return "\(series.name): \(series.values.reduce(0, +)) in all\(most)"
        }
        let span = "\(labels.first ?? "") to \(labels.last ?? "") UTC, \(hourly ? "hourly" : "daily")"
        let created = series("Orders created", \.ordersCreated)
        let added = series("Added to Wallet", \.ordersAddedToWallet)
        let active = series("Active registrations", \.activeRegistrations)
        let removals = series("Removals", \.removals)
        let delivered = series("Pushes delivered", \.pushesDelivered)
        let failed = series("Pushes failed", \.pushesFailed)
        let fetches = series("Package fetches", \.packageFetches)
        let charts = [
            InsightChart(
                id: "chart-orders", title: "Orders created and added to Wallet", description: "\(span). \(describe(created)); \(describe(added)).",
                labels: labels, bars: created, line: added),
            InsightChart(
                id: "chart-registrations", title: "Active registrations",
                description: "\(span). Active registrations from \(active.values.first ?? 0) to \(active.values.last ?? 0).", labels: labels,
                bars: active, line: nil),
            InsightChart(
                id: "chart-pushes", title: "Pushes delivered and failed", description: "\(span). \(describe(delivered)); \(describe(failed)).",
                labels: labels, bars: delivered, line: failed),
            InsightChart(
                id: "chart-fetches", title: "Package fetches and removals", description: "\(span). \(describe(fetches)); \(describe(removals)).",
                labels: labels, bars: fetches, line: removals),
        ]
        let totals = report.totals
        let share = totals.walletShare.map { "\(Int(($0 * 100).rounded())) %" } ?? "—"
        return [
            "ranges": Self.ranges.map { ["value": $0.value, "label": $0.label, "selected": $0.value == chosen] as [String: Any] },
            "csvHref": "\(Self.path).csv?range=\(chosen)",
            "tiles": [
                ["label": "Orders created", "value": String(totals.ordersCreated)],
                ["label": "Added to Wallet", "value": String(totals.ordersAddedToWallet)],
                ["label": "Share in Wallet", "value": share],
                ["label": "Active registrations", "value": String(totals.activeRegistrations)],
                ["label": "Pushes delivered", "value": String(totals.pushesDelivered)],
                ["label": "Pushes failed", "value": String(totals.pushesFailed)],
            ],
            "charts": charts.map { chart in
                [
                    "id": chart.id, "title": chart.title, "svg": chart.svg, "barName": chart.bars.name,
                    "lineName": chart.line?.name ?? false,
                ] as [String: Any]
            },
            "rows": report.series.reversed().map { point in
                [
                    "start": long.string(from: point.start), "ordersCreated": point.ordersCreated, "ordersAddedToWallet": point.ordersAddedToWallet,
                    "activeRegistrations": point.activeRegistrations, "removals": point.removals, "pushesDelivered": point.pushesDelivered,
                    "pushesFailed": point.pushesFailed, "packageFetches": point.packageFetches,
                ] as [String: Any]
            },
            "bucketName": hourly ? "Hour (UTC)" : "Day (UTC)",
        ]
    }

    static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter
    }
}
