import Foundation
import SQLKit
import Synchronization
import TestSupport
import Testing

@testable import OrderPersistence

/// The merchants' event log (#32): each cause writes its event once, in its own transaction; pages are newest first,
/// per merchant.
@Suite struct EventLogStoreTests {
    /// The merchant's events, oldest first.
    static func events(_ store: SQLOrderStore, _ merchantID: String, type: EventType? = nil) async throws -> [EventRecord] {
        try await store.events(merchantID: merchantID, type: type, after: nil, limit: 100).events.reversed()
    }

    static func data(_ event: EventRecord) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
    }

    static func update(
        _ store: SQLOrderStore, _ fixture: Fixture, _ order: OrderRecord, note: ChangeNote = ChangeNote(), token: String? = nil,
        expectedVersion: Int? = nil
    ) async throws -> OrderRecord {
        try await store.updateOrder(
            type: fixture.orderType, id: order.orderIdentifier, expectedVersion: expectedVersion ?? order.version, document: Array("{}".utf8),
            status: "open", orderNumber: nil, renumberedFor: nil, updatedAt: Date(), note: note, authenticationToken: token, tracking: nil,
            scan: nil)
    }

    /// An event's data is JSON that any parser reads back to the same values, with sorted keys (equal data, equal bytes).
    @Test func eventDataIsJSONWithSortedKeysAndEveryCharacterEscapedAsJSONNeeds() throws {
        let awkward = "quote \" backslash \\ slash / newline \n tab \t bell \u{07} é 📦"
        let data: [String: EventValue] = [
            "z": .integer(-42), "a": .string(awkward), "m": .strings(["x", awkward]), "n": .null,
            "o": .object(["b": .integer(Int64.max), "a": .object([:])]),
        ]
        let text = EventValue.serialized(data)
        #expect(text.hasPrefix(#"{"a":"quote \" backslash \\ slash / newline \n tab \t bell \u0007 é 📦","m":["#))
        #expect(text.hasSuffix(#""n":null,"o":{"a":{},"b":9223372036854775807},"z":-42}"#))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(parsed["a"] as? String == awkward)
        #expect(parsed["m"] as? [String] == ["x", awkward])
        #expect(parsed["n"] is NSNull)
        #expect((parsed["z"] as? NSNumber)?.int64Value == -42)
        #expect(((parsed["o"] as? [String: Any])?["b"] as? NSNumber)?.int64Value == Int64.max)
        #expect(EventValue.serialized([:]) == "{}")
    }

    /// Commits of events wake the webhook worker only while an enabled endpoint may exist: a look that finds none
    /// stops the wake-ups, an endpoint added or enabled here starts them again.
    @Test func committedEventsWakeTheWebhookWorkerOnlyWhileAnEnabledEndpointMayExist() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let wakes = Mutex(0)
            store.observeCommittedEvents { wakes.withLock { $0 += 1 } }
            var order = try await store.createOrder(fixture.order("A"), note: ChangeNote())
            #expect(wakes.withLock { $0 } == 1, "before any look, every commit of events wakes")

            #expect(try await store.claimWebhookEndpoints(limit: 8, leaseDuration: 60).isEmpty)
            order = try await Self.update(store, fixture, order)
            order = try await Self.update(store, fixture, order)
            #expect(wakes.withLock { $0 } == 1, "no enabled endpoint: commits wake nobody")

            let endpoint = WebhookEndpointRecord(
                id: "we_wake", merchantID: fixture.merchant.id, url: "https://example.com/hooks", events: ["*"], description: nil,
                secret: "whsec_test", createdAt: Date())
            _ = try await store.addWebhookEndpoint(endpoint, limit: 16)
            order = try await Self.update(store, fixture, order)
            #expect(wakes.withLock { $0 } == 2, "an endpoint added here: the next commit wakes")
            #expect(try await store.claimWebhookEndpoints(limit: 8, leaseDuration: 60).map(\.endpoint.id) == ["we_wake"])
            order = try await Self.update(store, fixture, order)
            #expect(wakes.withLock { $0 } == 3, "a look that found the endpoint keeps the wake-ups")

            #expect(try await store.deleteWebhookEndpoint(id: "we_wake", merchantID: fixture.merchant.id))
            #expect(try await store.claimWebhookEndpoints(limit: 8, leaseDuration: 60).isEmpty)
            order = try await Self.update(store, fixture, order)
            #expect(wakes.withLock { $0 } == 3, "the last endpoint deleted and looked for: commits wake nobody again")

            let platform = PlatformWebhookEndpointRecord(
                id: "pwe_wake", url: "https://example.com/platform", events: ["*"], description: nil, secret: "whsec_test", createdAt: Date())
            _ = try await store.addPlatformWebhookEndpoint(platform, limit: 4)
            _ = try await Self.update(store, fixture, order)
            #expect(wakes.withLock { $0 } == 4, "a platform endpoint shared with the merchant: the next commit wakes")
        }
    }

    @Test func creationsAndUpdatesAreLoggedOncePerWrittenChange() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let created = try await store.createOrder(fixture.order("A"), note: ChangeNote(author: "merchant API", keyID: "key_1", keyName: "shop"))
            let note = ChangeNote(
                author: "carrier tracking", changedFields: ["fulfillments"], keyID: "conn-1", keyName: "carrier:aftership",
                changedPaths: ["/fulfillments/0/status", "/fulfillments/1/status", "/fulfillments/2/status"],
                fulfillmentChanges: [
                    FulfillmentStatusChange(fulfillmentIdentifier: "F1", from: "onTheWay", to: "delivered"),
                    FulfillmentStatusChange(fulfillmentIdentifier: "F2", from: "open", to: "issue"),
                    FulfillmentStatusChange(fulfillmentIdentifier: "F3", from: "open", to: "onTheWay"),
                ])
            let updated = try await Self.update(store, fixture, created, note: note)
            await #expect(throws: OrderStoreError.self, "a version conflict writes nothing") {
                _ = try await Self.update(store, fixture, created, note: note)
            }

            let events = try await Self.events(store, fixture.merchant.id)
            #expect(events.map(\.type) == [.orderCreated, .orderUpdated, .fulfillmentDelivered, .fulfillmentIssue])
            #expect(events.map(\.sequence) == [1, 2, 3, 4], "one merchant's sequence increases in commit order")
            #expect(events.allSatisfy { $0.order == created.key && $0.id.hasPrefix("evt_") && $0.id.count == 28 })
            #expect(events.allSatisfy { $0.id.dropFirst(4).allSatisfy { "0123456789abcdef".contains($0) } })
            #expect(Set(events.map(\.id)).count == events.count)
            let creation = try Self.data(events[0])
            #expect(creation["orderIdentifier"] as? String == "A" && creation["version"] as? Int == 1 && creation["changedPaths"] == nil)
            #expect((creation["actor"] as? [String: Any])?["keyId"] as? String == "key_1")
            let change = try Self.data(events[1])
            #expect(change["changedPaths"] as? [String] == note.changedPaths && change["version"] as? Int == updated.version)
            #expect((change["actor"] as? [String: Any])?["keyName"] as? String == "carrier:aftership")
            let delivered = try Self.data(events[2])
            #expect(delivered["fulfillmentIdentifier"] as? String == "F1" && delivered["previousFulfillmentStatus"] as? String == "onTheWay")
            #expect(try Self.data(events[3])["fulfillmentStatus"] as? String == "issue")
        }
    }

    @Test func updatesWrittenTogetherEachLogTheirOwnEventsAndRefusedOnesNone() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            var orders: [OrderRecord] = []
            for id in ["A", "B", "C", "D"] { orders.append(try await store.createOrder(fixture.order(id))) }
            let results = await withTaskGroup(of: Bool.self) { group in
                for (index, order) in orders.enumerated() {
                    // D's update names a version it is not at: refused, nothing logged.
                    group.addTask { (try? await Self.update(store, fixture, order, expectedVersion: index == 3 ? 7 : 1)) != nil }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 3)
            let updates = try await Self.events(store, fixture.merchant.id, type: .orderUpdated)
            #expect(updates.compactMap(\.order?.orderIdentifier).sorted() == ["A", "B", "C"])
            #expect(Set(try await Self.events(store, fixture.merchant.id).map(\.sequence)).count == 7)
        }
    }

    /// One batch of updates of two merchants' orders, one of them rotating a token that a device was registered with:
    /// on PostgreSQL the change tags, both merchants' events and the insight counts are one statement. Each merchant's
    /// sequence runs on without a gap, and the removal is counted in its merchant's roll-ups.
    @Test func aBatchAcrossMerchantsLogsEachMerchantsEventsInSequenceAndCountsThem() async throws {
        try await withStore { store, _ in
            let shop = try await Fixture.make(store)
            let rival = try await Fixture.make(store, orderType: "order.com.example.rival")
            var orders: [OrderRecord] = []
            for id in ["A", "B", "C"] { orders.append(try await store.createOrder(shop.order(id))) }
            for id in ["R1", "R2"] { orders.append(try await store.createOrder(rival.order(id))) }
            _ = try await store.register(
                deviceLibraryIdentifier: "device-1", pushToken: "push-1", orderTypeIdentifier: shop.orderType, orderIdentifier: "B")
            let results = try await store.writeOrderUpdates(
                orders.map { order in
                    SQLOrderStore.OrderUpdate(
                        key: order.key, expectedVersion: 1, document: Array("{}".utf8), status: "open", orderNumber: nil, renumberedFor: nil,
                        updatedAt: Date(), note: ChangeNote(author: "test"),
                        authenticationToken: order.orderIdentifier == "B" ? "token-B-rotated-0123456789" : nil, tracking: nil, scan: nil)
                })
            #expect(results.allSatisfy { (try? $0.get()) != nil })
            let shopEvents = try await Self.events(store, shop.merchant.id)
            #expect(
                shopEvents.map(\.type) == [
                    .orderCreated, .orderCreated, .orderCreated, .orderWalletAdded, .orderUpdated, .orderWalletRemoved, .orderUpdated, .orderUpdated,
                ])
            #expect(shopEvents.suffix(4).compactMap(\.order?.orderIdentifier) == ["A", "B", "B", "C"], "in the batch's order")
            #expect(shopEvents.map(\.sequence) == Array(1...8), "the shop's sequence runs on")
            let rivalEvents = try await Self.events(store, rival.merchant.id)
            #expect(rivalEvents.map(\.type) == [.orderCreated, .orderCreated, .orderUpdated, .orderUpdated])
            #expect(rivalEvents.map(\.sequence) == Array(1...4), "the rival's own sequence")
            func total(_ merchantID: String, _ metric: InsightMetric) async throws -> Int64 {
                let counts = try await store.insightCounts(
                    merchantID: merchantID, orderTypeIdentifier: nil, from: Date(timeIntervalSince1970: 0), to: Date().addingTimeInterval(86_400),
                    granularity: .day)
                return counts.buckets.values.reduce(0) { $0 + ($1[metric] ?? 0) }
            }
            let removals = (try await total(shop.merchant.id, .removals), try await total(rival.merchant.id, .removals))
            let created = (try await total(shop.merchant.id, .ordersCreated), try await total(rival.merchant.id, .ordersCreated))
            #expect(removals == (1, 0) && created == (3, 2))
        }
    }

    @Test func anOrdersFirstRegistrationAndItsLastRemovalAreLoggedWhateverRemovesIt() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let order = try await store.createOrder(fixture.order("A"))
            let register = { (device: String, token: String) in
                _ = try await store.register(
                    deviceLibraryIdentifier: device, pushToken: token, orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
            }
            let walletTypes = { try await Self.events(store, fixture.merchant.id).map(\.type).filter { $0 != .orderCreated && $0 != .orderUpdated } }
            try await register("d1", "t1")
            try await register("d1", "t1-new")
            try await register("d2", "t2")
            #expect(try await walletTypes() == [.orderWalletAdded], "only the first device adds the order to a wallet")
            #expect(try await store.unregister(deviceLibraryIdentifier: "d1", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A"))
            #expect(try await walletTypes() == [.orderWalletAdded])
            #expect(try await store.unregister(deviceLibraryIdentifier: "d2", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A"))
            #expect(!(try await store.unregister(deviceLibraryIdentifier: "d2", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")))
            #expect(try await walletTypes() == [.orderWalletAdded, .orderWalletRemoved])

            // A token rotation deletes the registrations made with the old token.
            try await register("d3", "t3")
            _ = try await Self.update(store, fixture, order, token: "token-rotated-0123456789abcdef")
            #expect(try await walletTypes() == [.orderWalletAdded, .orderWalletRemoved, .orderWalletAdded, .orderWalletRemoved])
            let removed = try #require(try await Self.events(store, fixture.merchant.id, type: .orderWalletRemoved).last)
            #expect(removed.order == order.key)
            #expect(try Self.data(removed)["orderIdentifier"] as? String == "A")
        }
    }

    @Test func walletLinksRevokedOrExpiredRemoveTheOrdersLastRegistration() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let order = try await store.createOrder(fixture.order("A")).key
            let now = milliseconds(Date())
            let removed = { try await Self.events(store, fixture.merchant.id, type: .orderWalletRemoved).count }
            for (id, expiresAt) in [("wl-1", now.addingTimeInterval(3600)), ("wl-2", now.addingTimeInterval(60))] {
                try await store.createWalletLink(
                    WalletLinkRecord(
                        id: id, tokenHash: "hash-\(id)", deviceTokenHash: "device-\(id)", merchantID: fixture.merchant.id, order: order,
                        createdAt: now, expiresAt: expiresAt))
            }
            _ = try await store.register(
                deviceLibraryIdentifier: "d1", pushToken: "t1", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A", walletLinkID: "wl-1",
                maximumPerOrder: nil)
            _ = try await store.revokeWalletLink(merchantID: fixture.merchant.id, id: "wl-1", at: now)
            #expect(try await removed() == 1, "revoking the link took the order's only registration")

            _ = try await store.register(
                deviceLibraryIdentifier: "d2", pushToken: "t2", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A", walletLinkID: "wl-2",
                maximumPerOrder: nil)
            #expect(try await store.deleteRegistrations(ofWalletLinksExpiredBefore: now.addingTimeInterval(120)) == 1)
            #expect(try await store.deleteWalletLinks(expiredBefore: now.addingTimeInterval(120)) == 1)
            #expect(try await removed() == 2, "the expired link's registration went once")
            #expect(try await Self.events(store, fixture.merchant.id, type: .orderWalletAdded).count == 2)
        }
    }

    @Test func concurrentWritersGetOneEventPerCauseAndAGaplessSequence() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            try await store.createOrder(fixture.order("A"))
            let devices = (0..<12).map { "device-\($0)" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for device in devices {
                    group.addTask {
                        _ = try await store.register(
                            deviceLibraryIdentifier: device, pushToken: "token-\(device)", orderTypeIdentifier: fixture.orderType,
                            orderIdentifier: "A")
                    }
                    group.addTask { try await store.createOrder(fixture.order("order-\(device)")) }
                }
                try await group.waitForAll()
            }
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for device in devices {
                    group.addTask {
                        try await store.unregister(deviceLibraryIdentifier: device, orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
                    }
                }
                try await group.waitForAll()
            }
            let events = try await Self.events(store, fixture.merchant.id)
            #expect(events.filter { $0.type == .orderWalletAdded }.count == 1, "only one of the concurrent registrations was the first")
            #expect(events.filter { $0.type == .orderWalletRemoved }.count == 1, "only one of the concurrent removals was the last")
            #expect(events.filter { $0.type == .orderCreated }.count == 13)
            #expect(events.map(\.sequence) == Array(1...Int64(events.count)), "one merchant's sequence has no gaps and no repeats")
        }
    }

    @Test func aParkedJobAndAnInvalidatedTokenAreLoggedWithAPNsReason() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let order = try await store.createOrder(fixture.order("A"))
            for device in ["d0", "d1"] {
                _ = try await store.register(
                    deviceLibraryIdentifier: device, pushToken: "token-\(device)", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
            }
            _ = try await Self.update(store, fixture, order)
            let jobs = try await store.claimPushJobs(limit: 10, leaseOwner: "w1", leaseDuration: 60, after: nil).sorted {
                $0.pushToken < $1.pushToken
            }
            #expect(jobs.count == 2)
            let entry = { (job: PushJob, status: Int, reason: String, outcome: PushOutcome) in
                PushLogEntry(
                    orderTypeIdentifier: job.orderTypeIdentifier, orderIdentifier: job.orderIdentifier, tokenSuffix: String(job.pushToken.suffix(8)),
                    attempt: job.attempts, status: status, reason: reason, apnsID: nil, outcome: outcome, at: Date())
            }
            let outcomes: [(job: PushJob, resolution: PushJobResolution, log: PushLogEntry)] = [
                (jobs[0], .park, entry(jobs[0], 403, "InvalidProviderToken", .parked)),
                (jobs[1], .dropToken(registeredBefore: nil), entry(jobs[1], 410, "Unregistered", .tokenRemoved)),
            ]
            try await store.resolvePushJobs(outcomes)
            try await store.resolvePushJobs(outcomes)
            let failures = try await Self.events(store, fixture.merchant.id, type: .pushFailed)
            #expect(failures.count == 2, "a resolution whose claim is gone logs nothing")
            let parked = try Self.data(failures[0])
            #expect(
                parked["cause"] as? String == "parked" && parked["reason"] as? String == "InvalidProviderToken" && parked["apnsStatus"] as? Int == 403
            )
            let dropped = try Self.data(failures[1])
            #expect(dropped["cause"] as? String == "tokenInvalidated" && dropped["reason"] as? String == "Unregistered")
            #expect(dropped["tokenSuffix"] as? String == "token-d1".suffix(8).description)
            #expect(try await Self.events(store, fixture.merchant.id, type: .orderWalletRemoved).isEmpty, "d0 still has the order")

            _ = try await Self.update(store, fixture, try #require(try await store.order(type: fixture.orderType, id: "A")))
            let last = try #require(try await store.claimPushJobs(limit: 10, leaseOwner: "w1", leaseDuration: 60, after: nil).first)
            try await store.resolvePushJobs([(last, .dropToken(registeredBefore: nil), entry(last, 410, "Unregistered", .tokenRemoved))])
            #expect(try await Self.events(store, fixture.merchant.id, type: .orderWalletRemoved).count == 1, "the last registration went")
        }
    }

    @Test func aCarrierEventIsReportedUnmatchedOnceHoweverOftenItIsFinishedSo() async throws {
        try await withStore { store, _ in
            let (fixture, order) = try await CarrierStoreTests.prepare(store)
            _ = try await store.receiveCarrierEvent(CarrierStoreTests.event("e1", trackingNumber: "TRK-1"))
            let claim = try #require(try await store.claimCarrierEvents(limit: 1, leaseDuration: 60).first)
            #expect(
                try await store.finishCarrierEvent(id: claim.id, attempt: claim.attempts, state: .unmatched, outcome: "none", match: nil)
                    == .unmatched)
            // A fulfillment gets the number, then loses it again: the event waits again and is finished unmatched again.
            let entry = FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "TRK-1", carrier: nil)
            #expect(try await store.replaceFulfillmentTracking(order: order, merchantID: fixture.merchant.id, entries: [entry]) == 1)
            try await store.replaceFulfillmentTracking(order: order, merchantID: fixture.merchant.id, entries: [])
            let again = try #require(try await store.claimCarrierEvents(limit: 1, leaseDuration: 60).first)
            #expect(
                try await store.finishCarrierEvent(id: again.id, attempt: again.attempts, state: .unmatched, outcome: "none", match: nil)
                    == .unmatched)

            let unmatched = try await Self.events(store, fixture.merchant.id, type: .carrierEventUnmatched)
            #expect(unmatched.count == 1 && unmatched.first?.order == nil)
            let data = try Self.data(try #require(unmatched.first))
            #expect(
                data["trackingNumber"] as? String == "TRK-1" && data["provider"] as? String == "aftership"
                    && data["carrierEventId"] as? Int == Int(claim.id))
        }
    }

    @Test func pagesAreNewestFirstFilteredByTypeAndEachMerchantsOwn() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let other = try await Fixture.make(store, orderType: "order.com.example.other")
            for id in ["A", "B", "C"] { try await store.createOrder(fixture.order(id)) }
            try await store.createOrder(other.order("X"))
            _ = try await Self.update(store, fixture, try #require(try await store.order(type: fixture.orderType, id: "B")))

            let first = try await store.events(merchantID: fixture.merchant.id, type: nil, after: nil, limit: 2)
            #expect(first.events.map(\.sequence) == [4, 3])
            let second = try await store.events(merchantID: fixture.merchant.id, type: nil, after: first.nextCursor, limit: 2)
            #expect(second.events.map(\.sequence) == [2, 1] && second.nextCursor == nil)
            let created = try await store.events(merchantID: fixture.merchant.id, type: .orderCreated, after: nil, limit: 100)
            #expect(created.events.compactMap(\.order?.orderIdentifier) == ["C", "B", "A"])

            let theirs = try await Self.events(store, other.merchant.id)
            #expect(theirs.map(\.sequence) == [1], "each merchant has its own sequence")
            let id = try #require(first.events.first?.id)
            #expect(try await store.event(id: id, merchantID: fixture.merchant.id) == first.events.first)
            #expect(try await store.event(id: id, merchantID: other.merchant.id) == nil, "another merchant's event is not found")

            await #expect(throws: OrderStoreError.self) {
                _ = try await store.events(merchantID: fixture.merchant.id, type: nil, after: nil, limit: 101)
            }
            let ordersCursor = ListCursor.orders.encode(2)
            await #expect(throws: OrderStoreError.invalidCursor(ordersCursor), "a cursor of another list") {
                _ = try await store.events(merchantID: fixture.merchant.id, type: nil, after: ordersCursor, limit: 10)
            }
        }
    }

    @Test func eventsGoWithTheirMerchantAndAfterTheRetention() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let other = try await Fixture.make(store, orderType: "order.com.example.other")
            try await store.createOrder(fixture.order("A"))
            try await store.createOrder(other.order("X"))
            #expect(try await store.deleteEvents(before: Date().addingTimeInterval(-60)) == 0)
            _ = try await store.deleteMerchant(id: other.merchant.id, force: true)
            #expect(try await CarrierStoreTests.rows(store, "events") == 1, "the merchant's events went with it")
            #expect(try await CarrierStoreTests.rows(store, "event_sequences") == 1)
            #expect(try await store.deleteEvents(before: Date().addingTimeInterval(60)) == 1)
            #expect(try await CarrierStoreTests.rows(store, "events") == 0)
        }
    }

    @Test func aPageReadsOneIndexRangeWithoutSortingAtScale() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let other = try await Fixture.make(store, orderType: "order.com.example.other")
            let order = OrderKey(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
            try await store.write("seed events") { db in
                for merchant in [fixture.merchant.id, other.merchant.id] {
                    for _ in 0..<10 {
                        let events = (0..<1_000).map { index in
                            NewEvent(merchantID: merchant, type: index % 50 == 0 ? .pushFailed : .orderUpdated, order: order, data: [:])
                        }
                        try await SQLOrderStore.appendEvents(db, events, at: Date())
                    }
                }
            }
            for type in [nil, EventType.pushFailed] {
                let query = { (db: any SQLDatabase) in
                    SQLOrderStore.eventsQuery(db, merchantID: fixture.merchant.id, type: type, before: 9_000, limit: 21).select
                }
                if TestDatabase.usesPostgres {
                    let plan = try await store.plan(analyze: true, of: query)
                    #expect(
                        plan.contains { $0.contains("Index") } && !plan.contains { $0.contains("Seq Scan") || $0.contains("Sort") }, "plan: \(plan)")
                } else {
                    let plan = try await store.plan(of: query)
                    #expect(plan.count == 1 && plan[0].hasPrefix("SEARCH events USING INDEX"), "plan: \(plan)")
                }
            }
            let page = try await store.events(merchantID: fixture.merchant.id, type: .pushFailed, after: nil, limit: 100)
            #expect(page.events.count == 100 && page.events.first?.sequence == 9_951 && page.nextCursor != nil)
        }
    }
}
