import Foundation
import SQLKit
import TestSupport
import Testing

@testable import OrderPersistence

/// The insight roll-ups (#32): incremented in each cause's transaction, they equal what the tables say, and the
/// migration's backfill counts the same.
@Suite struct InsightStoreTests {
    /// Registrations come and go in different buckets while the table keeps only the current ones: what compares is
    /// their running sum, the active registrations now, kept under bucket 0.
    static func comparable(_ counts: [InsightMetric: [Int64: Int64]]) -> [InsightMetric: [Int64: Int64]] {
        var counts = counts
        counts[.registrationChange] = [0: counts[.registrationChange]?.values.reduce(0, +) ?? 0]
        return counts
    }

    /// Every metric's count per bucket start as the source tables say, for one merchant (and order type), counted here
    /// row by row.
    static func tableCounts(_ store: SQLOrderStore, merchantID: String, orderType: String?, granularity: InsightGranularity) async throws
        -> [InsightMetric: [Int64: Int64]]
    {
        let sources: [(InsightMetric, String)] = [
            (.ordersCreated, "SELECT o.order_type_identifier, o.created_at AS at FROM orders o"),
            (.registrationChange, "SELECT o.order_type_identifier, o.registered_at AS at FROM registrations o"),
            (.ordersAddedToWallet, "SELECT o.order_type_identifier, o.created_at AS at FROM events o WHERE o.type = 'order.wallet_added'"),
            (.removals, "SELECT o.order_type_identifier, o.created_at AS at FROM events o WHERE o.type = 'order.wallet_removed'"),
            (.pushesFailed, "SELECT o.order_type_identifier, o.created_at AS at FROM events o WHERE o.type = 'push.failed'"),
            (.pushesDelivered, "SELECT o.order_type_identifier, o.at FROM push_log o WHERE o.outcome = 'delivered'"),
            // An entry may stand for several fetches.
            (.packageFetches, "SELECT o.order_type_identifier, o.at, COALESCE(o.occurrences, 1) AS n FROM order_activity o WHERE o.kind = 'fetched'"),
        ]
        let types = try await store.orderTypes(merchantID: merchantID).map(\.orderTypeIdentifier).filter { orderType == nil || $0 == orderType }
        return try await store.read("count the tables") { db in
            var counts: [InsightMetric: [Int64: Int64]] = [:]
            for (metric, query) in sources {
                for row in try await db.raw(SQLQueryString(query)).all() {
                    guard types.contains(try row.string("order_type_identifier")) else { continue }
                    let bucket = granularity.bucketStart(try row.int64("at"))
                    counts[metric, default: [:]][bucket, default: 0] += metric == .packageFetches ? try row.int64("n") : 1
                }
            }
            return comparable(counts)
        }
    }

    /// The roll-ups' counts in the same shape (registrations as their deltas).
    static func rollUps(_ store: SQLOrderStore, merchantID: String, orderType: String?, granularity: InsightGranularity) async throws
        -> [InsightMetric: [Int64: Int64]]
    {
        let counts = try await store.insightCounts(
            merchantID: merchantID, orderTypeIdentifier: orderType, from: Date(timeIntervalSince1970: 0), to: Date().addingTimeInterval(86_400 * 400),
            granularity: granularity)
        var shaped: [InsightMetric: [Int64: Int64]] = [:]
        for (start, metrics) in counts.buckets {
            for (metric, count) in metrics where count != 0 { shaped[metric, default: [:]][start.millisecondsSince1970] = count }
        }
        return comparable(shaped)
    }

    @Test func eachCauseCountsInItsTransactionAsTheTablesSayAndTheBackfillAgrees() async throws {
        // Time moves across hours and days between the causes.
        let clock = TestClock(Date(timeIntervalSince1970: 1_780_000_000))
        try await withStore(now: { clock.date }) { store, _ in
            let advance = { (seconds: Int) in clock.advance(by: .seconds(seconds)) }
            let shop = try await Fixture.make(store)
            let other = "order.com.example.other"
            try await store.upsertOrderType(
                OrderTypeRecord(orderTypeIdentifier: other, merchantID: shop.merchant.id, identity: .directory(path: "/x")))
            let rival = try await Fixture.make(store, orderType: "order.com.example.rival")

            var orders: [OrderRecord] = []
            for index in 0..<6 {
                var order = shop.order("A\(index)", at: clock.date)
                if index.isMultiple(of: 3) { order.orderTypeIdentifier = other }
                orders.append(try await store.createOrder(order))
                _ = try await store.createOrder(rival.order("R\(index)", at: clock.date))
                advance(1_700)
            }
            // Devices come and go: first registrations add orders to wallets, last ones going remove them.
            for (index, order) in orders.enumerated() {
                for device in 0...(index % 2) {
                    _ = try await store.register(
                        deviceLibraryIdentifier: "dev\(device)", pushToken: "token-\(index)-\(device)",
                        orderTypeIdentifier: order.orderTypeIdentifier,
                        orderIdentifier: order.orderIdentifier)
                }
                advance(5_000)
            }
            _ = try await store.register(
                deviceLibraryIdentifier: "rival", pushToken: "rival-token", orderTypeIdentifier: rival.orderType, orderIdentifier: "R0")
            #expect(
                try await store.unregister(deviceLibraryIdentifier: "dev0", orderTypeIdentifier: orders[0].orderTypeIdentifier, orderIdentifier: "A0")
            )
            #expect(
                try await store.unregister(deviceLibraryIdentifier: "dev0", orderTypeIdentifier: orders[1].orderTypeIdentifier, orderIdentifier: "A1")
            )
            advance(90_000)
            // Pushes: one delivered, one parked, one token dead.
            _ = try await store.enqueuePushes(orderTypeIdentifier: orders[2].orderTypeIdentifier, orderIdentifier: "A2")
            _ = try await store.enqueuePushes(orderTypeIdentifier: orders[3].orderTypeIdentifier, orderIdentifier: "A3")
            let jobs = try await store.claimPushJobs(limit: 10, leaseOwner: "w", leaseDuration: 60, after: nil).sorted { $0.pushToken < $1.pushToken }
            #expect(jobs.count == 3)
            let at = clock.date
            let log = { (job: PushJob, outcome: PushOutcome) in
                PushLogEntry(
                    orderTypeIdentifier: job.orderTypeIdentifier, orderIdentifier: job.orderIdentifier, tokenSuffix: String(job.pushToken.suffix(8)),
                    attempt: job.attempts, status: 200, reason: nil, apnsID: nil, outcome: outcome, at: at)
            }
            // A2's only device, then A3's two.
            try await store.resolvePushJobs([
                (jobs[0], .dropToken(registeredBefore: nil), log(jobs[0], .tokenRemoved)), (jobs[1], .delivered, log(jobs[1], .delivered)),
                (jobs[2], .park, log(jobs[2], .parked)),
            ])
            advance(4_000)
            try await store.appendActivity(
                orders.prefix(4).enumerated().map { index, order in
                    // Repeated fetches written as one entry count each.
                    OrderActivity(
                        orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier, kind: .fetched, status: 200,
                        at: clock.date, occurrences: index + 1)
                })

            for granularity in InsightGranularity.allCases {
                let pages: [(String, String?)] = [
                    (shop.merchant.id, nil), (shop.merchant.id, other), (shop.merchant.id, shop.orderType), (rival.merchant.id, nil),
                ]
                for (merchant, type) in pages {
                    let live = try await Self.rollUps(store, merchantID: merchant, orderType: type, granularity: granularity)
                    #expect(
                        live == (try await Self.tableCounts(store, merchantID: merchant, orderType: type, granularity: granularity)),
                        "\(granularity) \(type ?? merchant)")
                }
            }
            let live = try await Self.rollUps(store, merchantID: shop.merchant.id, orderType: nil, granularity: .day)
            #expect(live[.ordersCreated]?.values.reduce(0, +) == 6 && live[.ordersAddedToWallet]?.values.reduce(0, +) == 6)
            #expect(live[.removals]?.values.reduce(0, +) == 2 && live[.pushesDelivered]?.values.reduce(0, +) == 1)
            #expect(live[.pushesFailed]?.values.reduce(0, +) == 2 && live[.packageFetches]?.values.reduce(0, +) == 1 + 2 + 3 + 4)

            // Active registrations before a range: the running sum of the deltas before it, from days and then hours.
            let now = clock.date
            let registrations = try await store.read("count registrations") { db in
                // Registrations of A0…A5: 1 + 2 + 1 + 2 + 1 + 2, less two unregistered and one dead token.
                try await db.raw(
                    "SELECT r.order_type_identifier FROM registrations r JOIN order_types t ON t.order_type_identifier = r.order_type_identifier WHERE t.merchant_id = \(bind: shop.merchant.id)"
                ).all().count
            }
            let hourStart = Date(millisecondsSince1970: InsightGranularity.hour.bucketStart(now.millisecondsSince1970) + 3_600_000)
            #expect(
                try await store.insightCounts(
                    merchantID: shop.merchant.id, orderTypeIdentifier: nil, from: hourStart, to: hourStart.addingTimeInterval(3_600),
                    granularity: .hour
                ).registrationsBefore == Int64(registrations))

            // The migration's backfill, run again on emptied roll-ups, finds the same; but for the fetches: it came
            // before activity entries could stand for several (schema 27), and counts one a fetch entry.
            var before = try await Self.rollUps(store, merchantID: shop.merchant.id, orderType: nil, granularity: .hour)
            try await store.write("backfill again") { db in
                try await db.raw("DELETE FROM insight_counts").run()
                try await InsightSchema.backfill(db)
            }
            var after = try await Self.rollUps(store, merchantID: shop.merchant.id, orderType: nil, granularity: .hour)
            #expect(after.removeValue(forKey: .packageFetches)?.values.reduce(0, +) == 4)
            before.removeValue(forKey: .packageFetches)
            #expect(after == before)
            #expect(
                try await Self.rollUps(store, merchantID: rival.merchant.id, orderType: nil, granularity: .day)
                    == (try await Self.tableCounts(store, merchantID: rival.merchant.id, orderType: nil, granularity: .day)))
        }
    }
}
