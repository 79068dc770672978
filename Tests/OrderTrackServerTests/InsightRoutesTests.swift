import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import SQLKit
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackServer

/// The insights API (#32): real causes through the merchant API, the Wallet web service and the mock APNs, and the
/// series equal to what the tables say.
@Suite struct InsightRoutesTests {
    /// A 64-digit push token starting with `prefix` (the mock APNs picks faults by prefix).
    static func token(_ prefix: String, _ digit: Int) -> String { prefix + String(repeating: String(digit), count: 64 - prefix.count) }
    static let parkedToken = token("0b", 1)

    /// Each metric's count per bucket start (RFC 3339), counted by SQL from the tables the causes write, for the
    /// merchant (and order type).
    static func tableCounts(_ client: Client, merchantID: String, orderType: String?, interval: InsightGranularity) async throws
        -> [String: [String: Int]]
    {
        let size = interval.milliseconds
        // (metric, table, time column, condition, what a row counts: an activity entry may stand for several fetches)
        let sources = [
            ("ordersCreated", "orders", "created_at", "1 = 1", "1"),
            ("ordersAddedToWallet", "events", "created_at", "s.type = 'order.wallet_added'", "1"),
            ("removals", "events", "created_at", "s.type = 'order.wallet_removed'", "1"),
            ("pushesFailed", "events", "created_at", "s.type = 'push.failed'", "1"),
            ("pushesDelivered", "push_log", "at", "s.outcome = 'delivered'", "1"),
            ("packageFetches", "order_activity", "at", "s.kind = 'fetched'", "COALESCE(s.occurrences, 1)"),
        ]
        let type: SQLQueryString = orderType.map { " AND s.order_type_identifier = \(bind: $0)" } ?? ""
        return try await (client.store as! SQLOrderStore).withRawWriteTransaction("count the tables") { transaction in
            var counts: [String: [String: Int]] = [:]
            for (metric, table, time, condition, weight) in sources {
                let rows = try await transaction.database.raw(
                    """
                    SELECT s.\(unsafeRaw: time) - s.\(unsafeRaw: time) % \(unsafeRaw: String(size)) AS bucket, CAST(SUM(\(unsafeRaw: weight)) AS BIGINT) AS n
                    FROM \(ident: table) s JOIN order_types t ON t.order_type_identifier = s.order_type_identifier
                    WHERE t.merchant_id = \(bind: merchantID) AND \(unsafeRaw: condition)\(type)
                    GROUP BY s.\(unsafeRaw: time) - s.\(unsafeRaw: time) % \(unsafeRaw: String(size))
                    """
                ).all()
                for row in rows {
                    let start = DateTimeFormat.formatRFC3339(
                        Date(timeIntervalSince1970: Double(try row.decode(column: "bucket", as: Int64.self)) / 1000))
                    counts[start, default: [:]][metric] = try row.decode(column: "n", as: Int.self)
                }
            }
            return counts
        }
    }

    /// The page's non-zero counts in the same shape.
    static func seriesCounts(_ page: JSONValue) -> [String: [String: Int]] {
        var counts: [String: [String: Int]] = [:]
        for bucket in page["series"]?.arrayValue ?? [] {
            for metric in ["ordersCreated", "ordersAddedToWallet", "removals", "pushesFailed", "pushesDelivered", "packageFetches"] {
                if let value = bucket[metric]?.numberLiteral.flatMap(Int.init), value != 0 {
                    counts[bucket["start"]?.stringValue ?? "", default: [:]][metric] = value
                }
            }
        }
        return counts
    }

    static func total(_ page: JSONValue, _ metric: String) -> Int? { page["totals"]?[metric]?.numberLiteral.flatMap(Int.init) }

    @Test func theSeriesEqualTheTablesForRealCausesPerMerchantAndOrderType() async throws {
        let apns = try await LocalAPNs.start(faults: [Self.parkedToken: .status(400, reason: "DeviceTokenNotForTopic")])
        let server = try TestServer(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let type = client.credentials.orderTypeIdentifier
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: merchantID, RestrictedKeyTests.otherOrderType)
            var orders: [(type: String, id: String, token: String)] = []
            for orderType in [type, type, type, RestrictedKeyTests.otherOrderType] {
                var content = SampleContent.order
                content["orderTypeIdentifier"] = .string(orderType)
                orders.append(try await client.createOrder(content).details)
            }
            let register = { (order: (type: String, id: String, token: String), device: String, pushToken: String) in
                let reply = try await client.device(
                    .post, "/wallet/v1/devices/\(device)/registrations/\(order.type)/\(order.id)", token: order.token,
                    json: ["pushToken": .string(pushToken)])
                #expect(reply.status == .created, "\(reply.text)")
            }
            // Order 0: one device delivered to, one whose token APNs calls dead; order 1: a push parked; order 2: a device
            // that leaves again; order 3 (the other type): one device.
            try await register(orders[0], "dev-1", Self.token("ab", 1))
            try await register(orders[0], "dev-2", Self.token("fa170410", 2))
            try await register(orders[1], "dev-3", Self.parkedToken)
            try await register(orders[2], "dev-4", Self.token("ab", 4))
            try await register(orders[3], "dev-5", Self.token("ab", 5))
            #expect(
                try await client.device(.delete, "/wallet/v1/devices/dev-4/registrations/\(type)/\(orders[2].id)", token: orders[2].token).status
                    == .ok)
            for order in orders.prefix(2) {
                #expect(try await client.merchant(.patch, "/api/v1/orders/\(order.type)/\(order.id)", json: ["status": "completed"]).status == .ok)
            }
            _ = try await client.pushLog(type, orders[0].id) { $0.count >= 2 }
            _ = try await client.pushLog(type, orders[1].id) { !$0.isEmpty }
            for order in [orders[0], orders[0], orders[1]] {
                #expect(try await client.device(.get, "/wallet/v1/orders/\(order.type)/\(order.id)", token: order.token).status == .ok)
            }
            // Fetches are written behind, about every second.
            var daily: JSONValue = .null
            try await Poll.until(timeout: .seconds(20)) {
                daily = try await client.merchant(.get, "/api/v1/insights").json
                return Self.total(daily, "packageFetches") == 3
            }

            #expect(daily["interval"] == "day" && daily["series"]?.arrayValue?.count == 30, "30 daily buckets by default, zero-filled")
            #expect(Self.total(daily, "ordersCreated") == 4 && Self.total(daily, "ordersAddedToWallet") == 4 && Self.total(daily, "removals") == 1)
            #expect(Self.total(daily, "pushesDelivered") == 1 && Self.total(daily, "pushesFailed") == 2)
            #expect(Self.total(daily, "activeRegistrations") == 3, "dev-1, dev-3 (its push is only parked) and dev-5; dev-2's token died")
            #expect(daily["totals"]?["walletShare"] == .number("1"))
            let hourly = try await client.merchant(.get, "/api/v1/insights?interval=hour").json
            #expect(hourly["series"]?.arrayValue?.count == 48)
            for metric in [
                "ordersCreated", "ordersAddedToWallet", "removals", "pushesDelivered", "pushesFailed", "packageFetches", "activeRegistrations",
            ] {
                #expect(Self.total(hourly, metric) == Self.total(daily, metric), "\(metric): hours and days agree")
            }
            #expect(Self.seriesCounts(daily) == (try await Self.tableCounts(client, merchantID: merchantID, orderType: nil, interval: .day)))
            #expect(Self.seriesCounts(hourly) == (try await Self.tableCounts(client, merchantID: merchantID, orderType: nil, interval: .hour)))
            let other = try await client.merchant(.get, "/api/v1/insights?orderTypeIdentifier=\(RestrictedKeyTests.otherOrderType)").json
            #expect(other["orderTypeIdentifier"]?.stringValue == RestrictedKeyTests.otherOrderType)
            #expect(
                Self.seriesCounts(other)
                    == (try await Self.tableCounts(client, merchantID: merchantID, orderType: RestrictedKeyTests.otherOrderType, interval: .day)))
            #expect(
                Self.total(other, "ordersCreated") == 1 && Self.total(other, "activeRegistrations") == 1 && Self.total(other, "packageFetches") == 0)

            // Another merchant sees only its own.
            let (merchantB, keyB) = try await Administration(store: client.store).createMerchant(name: "Merchant B")
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: merchantB.id, "order.com.example.merchantb")
            var contentB = SampleContent.order
            contentB["orderTypeIdentifier"] = "order.com.example.merchantb"
            #expect(try await RestrictedKeyTests.call(client, keyB, .post, "/api/v1/orders", json: contentB).status == .created)
            let theirs = try await RestrictedKeyTests.call(client, keyB, .get, "/api/v1/insights").json
            #expect(
                Self.total(theirs, "ordersCreated") == 1 && Self.total(theirs, "pushesDelivered") == 0
                    && Self.total(theirs, "activeRegistrations") == 0)
            #expect(Self.total(try await client.merchant(.get, "/api/v1/insights").json, "ordersCreated") == 4)
            let foreign = try await RestrictedKeyTests.call(client, keyB, .get, "/api/v1/insights?orderTypeIdentifier=\(type)").json
            #expect(Self.total(foreign, "ordersCreated") == 0, "another merchant's order type shows nothing")
        }
        try await apns.stop()
    }

    @Test func csvRangesAndScope() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            _ = try await client.createOrder()
            let csv = try await client.merchant(.get, "/api/v1/insights?interval=hour&format=csv")
            #expect(csv.status == .ok && csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"insights-hour-") == true)
            let lines = csv.text.split(separator: "\r\n")
            #expect(lines.count == 49)
            #expect(
                lines.first
                    == "start,ordersCreated,ordersAddedToWallet,walletShare,activeRegistrations,removals,pushesDelivered,pushesFailed,packageFetches")
            #expect(lines.last?.hasSuffix(",1,0,0,0,0,0,0,0") == true, "\(lines.last ?? "")")

            let page = try await client.merchant(.get, "/api/v1/insights?from=2026-01-01T10:30:00Z&to=2026-01-03T00:00:00Z").json
            #expect(page["from"] == "2026-01-01T00:00:00.000Z" && page["to"] == "2026-01-03T00:00:00.000Z")
            #expect(page["series"]?.arrayValue?.map { $0["start"]?.stringValue ?? "" } == ["2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z"])
            #expect(page["series"]?.arrayValue?.first?["walletShare"] == .null && page["series"]?.arrayValue?.first?["ordersCreated"] == .number("0"))

            for (query, status, param) in [
                ("interval=week", 400, "interval"), ("from=yesterday", 400, "from"), ("to=2026-13-01T00:00:00Z", 400, "to"),
                ("format=xml", 400, "format"), ("from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", 422, "from"),
                ("from=2024-01-01T00:00:00Z&to=2025-01-02T00:00:00Z", 422, "from"),
                ("interval=hour&from=2026-01-01T00:00:00Z&to=2026-02-01T01:00:00Z", 422, "from"),
            ] {
                let reply = try await client.merchant(.get, "/api/v1/insights?\(query)")
                #expect(reply.status.code == status && reply.json["error"]?["param"] == .string(param), "\(query): \(reply.text)")
            }
            #expect(try await client.merchant(.get, "/api/v1/insights?from=2024-01-01T00:00:00Z&to=2025-01-01T00:00:00Z").status == .ok, "366 days")

            let orders = try await RestrictedKeyTests.createKey(client, ["name": "orders", "scopes": ["orders:write"]])
            let refused = try await RestrictedKeyTests.call(client, orders.secret, .get, "/api/v1/insights")
            #expect(refused.status == .forbidden && RestrictedKeyTests.error(refused).code == "scope_missing")
            let reader = try await RestrictedKeyTests.createKey(client, ["name": "insights", "scopes": ["insights:read"]])
            #expect(try await RestrictedKeyTests.call(client, reader.secret, .get, "/api/v1/insights").status == .ok)
        }
    }
}
