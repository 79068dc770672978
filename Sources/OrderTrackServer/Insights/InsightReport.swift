import Foundation
import OrderModel
import OrderPersistence

/// The range of an insights page: buckets of `granularity` starting in `from..<to` (UTC), of one order type or all.
package struct InsightRange: Sendable, Hashable {
    package var from: Date
    package var to: Date
    package var granularity: InsightGranularity
    package var orderTypeIdentifier: String?

    /// The most buckets a page has: a leap year of days, or a 31-day month of hours.
    package static func maximumBuckets(_ granularity: InsightGranularity) -> Int64 {
        switch granularity {
        case .day: 366
        case .hour: 744
        }
    }

    /// The days of hours kept: hourly buckets from the start of the day this many days before today's on; older ones
    /// are deleted by ``RetentionService`` (daily buckets are kept for ever).
    package static let hourlyHistoryDays: Int64 = 92

    /// The first hour an hourly page may start at.
    package static func earliestHour(now: Date) -> Date {
        Date(milliseconds: InsightGranularity.day.bucketStart(now.milliseconds) - hourlyHistoryDays * InsightGranularity.day.milliseconds)
    }

    /// The buckets a page has when the query names no `from`: 30 days, or 48 hours.
    static func defaultBuckets(_ granularity: InsightGranularity) -> Int64 {
        switch granularity {
        case .day: 30
        case .hour: 48
        }
    }

    /// The last `count` buckets up to the current one (which `now` is in) included.
    package static func last(_ count: Int64, of granularity: InsightGranularity, now: Date, orderTypeIdentifier: String? = nil) -> InsightRange {
        let end = granularity.bucketStart(now.milliseconds) + granularity.milliseconds
        return InsightRange(
            from: Date(milliseconds: end - count * granularity.milliseconds), to: Date(milliseconds: end), granularity: granularity,
            orderTypeIdentifier: orderTypeIdentifier)
    }

    /// The range the query asks for. `to` (exclusive) is rounded up to a bucket boundary, by default the end of the
    /// current bucket; `from` is rounded down, by default ``defaultBuckets(_:)`` before `to`.
    ///
    /// - Throws: ``APIError`` 400 naming `interval`, `from` or `to` when unreadable; 422 naming `from` when the range is
    ///   empty, longer than ``maximumBuckets(_:)``, or of hours before ``earliestHour(now:)``.
    package static func parse(from: String?, to: String?, interval: String?, orderTypeIdentifier: String?, now: Date) throws -> InsightRange {
        guard let granularity = InsightGranularity(rawValue: interval ?? "day") else {
            throw APIError.badRequest("interval_invalid", "interval must be day or hour", param: "interval")
        }
        let size = granularity.milliseconds
        let date = { (text: String?, name: String) throws -> Int64? in
            guard let text else { return nil }
            guard let parsed = DateTimeFormat.parseRFC3339(text) else {
                throw APIError.badRequest("\(name)_invalid", "\(name) must be an ISO 8601 date and time such as 2026-05-01T00:00:00Z", param: name)
            }
            return parsed.milliseconds
        }
        let end = try date(to, "to").map { granularity.bucketStart($0 + size - 1) } ?? granularity.bucketStart(now.milliseconds) + size
        let start = granularity.bucketStart(try date(from, "from") ?? end - defaultBuckets(granularity) * size)
        guard start < end else {
            throw APIError(
                status: .unprocessableContent, kind: .invalidRequest, code: "range_invalid", message: "from must be before to", param: "from")
        }
        let earliest = earliestHour(now: now)
        guard granularity == .day || start >= earliest.milliseconds else {
            throw APIError(
                status: .unprocessableContent, kind: .invalidRequest, code: "range_too_old",
                message:
                    "hourly buckets are kept for \(hourlyHistoryDays) days: from must be \(DateTimeFormat.formatRFC3339(earliest)) or later; use interval=day for older ranges",
                param: "from")
        }
        guard (end - start) / size <= maximumBuckets(granularity) else {
            throw APIError(
                status: .unprocessableContent, kind: .invalidRequest, code: "range_too_long",
                message: "a page has at most \(maximumBuckets(granularity)) \(granularity == .day ? "daily" : "hourly") buckets", param: "from")
        }
        return InsightRange(
            from: Date(milliseconds: start), to: Date(milliseconds: end), granularity: granularity, orderTypeIdentifier: orderTypeIdentifier)
    }
}

extension Date {
    /// Milliseconds since 1970, as the roll-ups' bucket starts are kept.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

/// One bucket of an insights page, or a page's totals.
package struct InsightPoint: Sendable, Hashable {
    package var start: Date
    package var ordersCreated: Int64 = 0
    package var ordersAddedToWallet: Int64 = 0
    /// At the end of the bucket (the totals: of the range).
    package var activeRegistrations: Int64 = 0
    package var removals: Int64 = 0
    package var pushesDelivered: Int64 = 0
    package var pushesFailed: Int64 = 0
    package var packageFetches: Int64 = 0

    /// Orders added to a wallet per order created in the same bucket; `nil` when none was created.
    package var walletShare: Double? { ordersCreated == 0 ? nil : Double(ordersAddedToWallet) / Double(ordersCreated) }
}

/// An insights page: every bucket of the range, zero-filled, and the range's totals.
package struct InsightReport: Sendable, Hashable {
    package var range: InsightRange
    package var series: [InsightPoint]
    package var totals: InsightPoint

    /// The CSV export's columns, in the JSON's names.
    static let columns = [
        "start", "ordersCreated", "ordersAddedToWallet", "walletShare", "activeRegistrations", "removals", "pushesDelivered", "pushesFailed",
        "packageFetches",
    ]

    /// The merchant's page for `range`.
    package static func load(_ store: any InsightStore, merchantID: String, range: InsightRange) async throws -> InsightReport {
        let counts = try await store.insightCounts(
            merchantID: merchantID, orderTypeIdentifier: range.orderTypeIdentifier, from: range.from, to: range.to, granularity: range.granularity)
        let size = range.granularity.milliseconds
        var active = counts.registrationsBefore
        var totals = InsightPoint(start: range.from)
        var series: [InsightPoint] = []
        for start in stride(from: range.from.milliseconds, to: range.to.milliseconds, by: Int(size)) {
            let date = Date(milliseconds: start)
            let metrics = counts.buckets[date] ?? [:]
            active += metrics[.registrationChange] ?? 0
            let point = InsightPoint(
                start: date, ordersCreated: metrics[.ordersCreated] ?? 0, ordersAddedToWallet: metrics[.ordersAddedToWallet] ?? 0,
                activeRegistrations: active, removals: metrics[.removals] ?? 0, pushesDelivered: metrics[.pushesDelivered] ?? 0,
                pushesFailed: metrics[.pushesFailed] ?? 0, packageFetches: metrics[.packageFetches] ?? 0)
            series.append(point)
            totals.ordersCreated += point.ordersCreated
            totals.ordersAddedToWallet += point.ordersAddedToWallet
            totals.removals += point.removals
            totals.pushesDelivered += point.pushesDelivered
            totals.pushesFailed += point.pushesFailed
            totals.packageFetches += point.packageFetches
        }
        totals.activeRegistrations = active
        return InsightReport(range: range, series: series, totals: totals)
    }

    /// The page as the API answers it.
    package var json: JSONValue {
        var body: JSONValue = [
            "from": .string(DateTimeFormat.formatRFC3339(range.from)), "to": .string(DateTimeFormat.formatRFC3339(range.to)),
            "interval": .string(range.granularity.rawValue), "series": .array(series.map { Self.json($0, start: true) }),
            "totals": Self.json(totals, start: false),
        ]
        if let type = range.orderTypeIdentifier { body["orderTypeIdentifier"] = .string(type) }
        return body
    }

    static func json(_ point: InsightPoint, start: Bool) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for (column, value) in zip(columns, values(point)).dropFirst() { members[column] = value.isEmpty ? .null : .number(value) }
        if start { members["start"] = .string(DateTimeFormat.formatRFC3339(point.start)) }
        return .object(members)
    }

    /// A point's values as text in ``columns``' order; an empty share when it has none.
    static func values(_ point: InsightPoint) -> [String] {
        [
            DateTimeFormat.formatRFC3339(point.start), String(point.ordersCreated), String(point.ordersAddedToWallet),
            point.walletShare.map(share) ?? "", String(point.activeRegistrations), String(point.removals), String(point.pushesDelivered),
            String(point.pushesFailed), String(point.packageFetches),
        ]
    }

    /// A share to four decimal places, without trailing zeros (`0.5`, `1`).
    static func share(_ value: Double) -> String {
        var text = String(format: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The series as CSV: a header row of ``columns``, then a row per bucket (CRLF line ends, RFC 4180).
    package var csv: String {
        ([Self.columns] + series.map(Self.values)).map { $0.joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }
}
