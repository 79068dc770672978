import Foundation
import HTTPTypes
import Logging
import OrderModel
import SQLKit
import ServerTestSupport
import Testing

@testable import OrderPersistence
@testable import OrderTrackServer

/// Records that only grow are pruned: idempotency keys after a day, push log and activity entries after the retention
/// period, hourly insight roll-ups after their history.
@Suite struct RetentionTests {
    @Test func expiredIdempotencyKeysAndPushLogEntriesAreForgottenAndNothingYounger() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "checkout-7"]
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order, headers: key)
            #expect(created.status == .created)
            let type = try #require(created.json["orderDetails"]?["orderTypeIdentifier"]?.stringValue)
            let id = try #require(created.json["orderDetails"]?["orderIdentifier"]?.stringValue)
            let job = PushJob(
                id: -1, orderTypeIdentifier: type, pushToken: String(repeating: "ab", count: 32), orderIdentifier: id, generation: 0, attempts: 1,
                enqueuedAt: Date(), leaseOwner: "gone", position: PushQueuePosition(availableAt: 0, id: -1))
            let entry = PushLogEntry(
                orderTypeIdentifier: type, orderIdentifier: id, tokenSuffix: "abababab", attempt: 1, status: 200, reason: nil, apnsID: nil,
                outcome: .delivered, at: Date())
            try await client.store.resolvePushJobs([(job, .park, entry)])
            let pushes = "/api/v1/orders/\(type)/\(id)/pushes"
            let logger = Logger(label: "retention-test")

            let now = try await RetentionService(store: client.store, configuration: RetentionConfiguration(), logger: logger, clock: .system).prune(
                now: Date())
            #expect(now.pushLog == 0 && now.idempotencyKeys == 0, "nothing is young enough to go")
            // A Track in Wallet link (7 days) answers "expired" for 30 days after that, then is forgotten.
            #expect(try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/wallet-link").status == .created)
            let keptForever = RetentionService(
                store: client.store, configuration: RetentionConfiguration(pushLog: nil), logger: logger, clock: .system)
            // The order's creation and its delivered push are an hour's two roll-ups.
            let later = try await keptForever.prune(now: Date().addingTimeInterval(400 * 86_400))
            #expect(later == RetentionService.Pruned(idempotencyKeys: 1, walletLinks: 1, hourlyInsights: 2), "\(later)")
            #expect(try await client.merchant(.get, pushes).json["data"]?.arrayValue?.count == 1, "a push log kept forever stays")

            let changed = SampleContent.order.setting("orderNumber", to: "2")
            let reused = try await client.merchant(.post, "/api/v1/orders", json: changed, headers: key)
            #expect(reused.status == .created, "a forgotten key is free for a new request")

            #expect(try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/wallet-link").status == .created)
            let service = RetentionService(store: client.store, configuration: RetentionConfiguration(), logger: logger, clock: .system)
            #expect(
                try await service.prune(now: Date().addingTimeInterval(31 * 86_400))
                    == RetentionService.Pruned(pushLog: 1, idempotencyKeys: 1, activity: 2, events: 2),
                "the two orders' creations were their only activity and events; the link expired only 24 days ago")
            #expect(try await client.merchant(.get, pushes).json["data"]?.arrayValue?.isEmpty == true)
            #expect(try await service.prune(now: Date().addingTimeInterval(38 * 86_400)) == RetentionService.Pruned(walletLinks: 1))
        }
    }

    @Test func hourlyInsightsOlderThanTheirHistoryGoWhileDaysAndActiveRegistrationsStay() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let store = try #require(client.store as? SQLOrderStore)
            let type = client.credentials.orderTypeIdentifier
            let now = Date()
            let old = now.addingTimeInterval(-200 * 86_400)
            var tally = InsightTally()
            tally.add(.ordersCreated, type, at: old, 2)
            tally.add(.registrationChange, type, at: old, 3)
            tally.add(.registrationChange, type, at: now.addingTimeInterval(-3_600), -1)
            try await store.write("seed insights") { db in try await SQLOrderStore.recordInsights(db, tally) }

            _ = try await RetentionService(
                store: store, configuration: RetentionConfiguration(), logger: Logger(label: "retention-test"), clock: .system
            )
            .prune(now: now)
            let cutoff = InsightRange.earliestHour(now: now).millisecondsSince1970
            let rows = try await store.read("count roll-ups") { db in
                try await db.raw(
                    """
                    SELECT granularity, COUNT(*) AS n FROM insight_counts WHERE bucket_start < \(bind: cutoff) GROUP BY granularity ORDER BY granularity
                    """
                ).all().map { "\(try $0.string("granularity"))=\(try $0.int("n"))" }
            }
            #expect(rows == ["day=2"], "the old hours are gone, their days stay: \(rows)")

            // The old day still answers, and the active registrations of the last hours still count the old ones.
            let oldDay = InsightRange.last(1, of: .day, now: old)
            let day = DateTimeFormat.formatRFC3339(oldDay.from)
            let daily = try await client.merchant(
                .get, "/api/v1/insights?interval=day&from=\(day)&to=\(DateTimeFormat.formatRFC3339(oldDay.to))")
            #expect(InsightRoutesTests.total(daily.json, "ordersCreated") == 2, "\(daily.text)")
            let hourly = try await client.merchant(.get, "/api/v1/insights?interval=hour")
            #expect(InsightRoutesTests.total(hourly.json, "activeRegistrations") == 2, "\(hourly.text)")
            // Hours before the history are refused, naming the field and the earliest start.
            let tooOld = try await client.merchant(.get, "/api/v1/insights?interval=hour&from=\(day)")
            #expect(tooOld.status == .unprocessableContent && tooOld.json["error"]?["code"] == "range_too_old", "\(tooOld.text)")
            #expect(tooOld.json["error"]?["param"] == "from" && tooOld.text.contains("92 days"))
        }
    }
}
