import Foundation
import HTTPTypes
import Logging
import OrderPersistence
import ServerTestSupport
import Testing

@testable import OrderTrackServer

/// Records that only grow are pruned: idempotency keys after a day, push log and activity entries after the retention
/// period.
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
            #expect(
                try await keptForever.prune(now: Date().addingTimeInterval(400 * 86_400))
                    == RetentionService.Pruned(idempotencyKeys: 1, walletLinks: 1))
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
}
