import Foundation
import SQLKit
import TestSupport
import Testing

@testable import OrderPersistence

/// The carrier tracking store (#31): connections with sealed secrets, the inbox of verified events (deduplicated,
/// leased like the push outbox, kill-safe), and the index from tracking numbers to fulfillments.
@Suite struct CarrierStoreTests {
    static func connection(_ id: String, merchantID: String, provider: String = "aftership", secret: String? = "whsec-carrier-1")
        -> CarrierConnectionRecord
    {
        CarrierConnectionRecord(
            id: id, merchantID: merchantID, provider: provider, secret: secret, statusMap: ["AttemptFail": "none"],
            createdAt: milliseconds(Date()))
    }

    static func event(_ key: String, connectionID: String = "conn-a", trackingNumber: String = "1Z999AA10123456784", at date: Date = Date())
        -> IncomingCarrierEvent
    {
        IncomingCarrierEvent(
            connectionID: connectionID, idempotencyKey: key, trackingNumber: trackingNumber, carrier: "ups", orderReference: "A1",
            occurredAt: date, event: Array(#"{"status":"InTransit","key":"\#(key)"}"#.utf8))
    }

    static func rows(_ store: SQLOrderStore, _ table: String) async throws -> Int {
        try await store.read("count rows") { db in
            try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(table).first(decodingColumn: "n", as: Int.self)
                ?? 0
        }
    }

    /// A merchant with an order and a connection.
    static func prepare(_ store: SQLOrderStore) async throws -> (Fixture, OrderKey) {
        let fixture = try await Fixture.make(store)
        try await store.createOrder(fixture.order("A1"))
        try await store.addCarrierConnection(connection("conn-a", merchantID: fixture.merchant.id))
        return (fixture, OrderKey(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A1"))
    }

    @Test func connectionsKeepTheirSecretSealedAndBelongToOneMerchant() async throws {
        try await withStore { store, _ in
            let (fixture, _) = try await Self.prepare(store)
            let other = try await store.createMerchant(name: "Other")
            let shipEngine = CarrierConnectionRecord(
                id: "conn-se", merchantID: fixture.merchant.id, provider: "shipengine", secret: nil, jwksURL: "https://example.com/jwks",
                createdAt: milliseconds(Date().addingTimeInterval(1)))
            try await store.addCarrierConnection(shipEngine)
            let stored = try #require(try await store.carrierConnection(id: "conn-a"))
            #expect(stored == Self.connection("conn-a", merchantID: fixture.merchant.id).with(createdAt: stored.createdAt))
            #expect(stored.secret == "whsec-carrier-1" && stored.statusMap == ["AttemptFail": "none"])
            #expect(try await store.carrierConnections(merchantID: fixture.merchant.id).map(\.id) == ["conn-a", "conn-se"])
            #expect(try await store.carrierConnection(id: "conn-se") == shipEngine)
            #expect(try await store.carrierConnections(merchantID: other.id).isEmpty)

            let raw = try await store.read("read the sealed secret") { db in
                try await db.select().column("secret").from("carrier_connections").where("id", .equal, "conn-a").first()?.bytes("secret")
            }
            let sealed = String(decoding: try #require(raw), as: UTF8.self)
            #expect(SecretSealer.isSealed(sealed) && !sealed.contains("whsec-carrier-1"), "the secret is sealed at rest")
            #expect(SecretColumn.all.contains { $0.table == "carrier_connections" && $0.column == "secret" }, "a key rotation re-seals it")

            await #expect(throws: OrderStoreError.merchantNotFound(id: "nobody")) {
                try await store.addCarrierConnection(Self.connection("conn-x", merchantID: "nobody"))
            }
            _ = try await store.receiveCarrierEvent(Self.event("e1"))
            #expect(try await store.deleteCarrierConnection(merchantID: other.id, id: "conn-a") == false, "another merchant deletes nothing")
            #expect(try await store.carrierConnection(id: "conn-a") != nil)
            #expect(try await store.deleteCarrierConnection(merchantID: fixture.merchant.id, id: "conn-a"))
            #expect(try await store.carrierConnection(id: "conn-a") == nil)
            #expect(try await Self.rows(store, "carrier_events") == 0, "the connection's events go with it")
            #expect(try await store.deleteCarrierConnection(merchantID: fixture.merchant.id, id: "conn-a") == false)
        }
    }

    @Test func aRedeliveryIsRecognisedAndChangesNothing() async throws {
        try await withStore { store, _ in
            let (fixture, _) = try await Self.prepare(store)
            let first = try await store.receiveCarrierEvent(Self.event("evt-1", trackingNumber: "  1Z999AA10123456784\n"))
            #expect(first.isNew)
            var again = Self.event("evt-1", trackingNumber: "OTHER")
            again.event = Array("changed".utf8)
            let redelivered = try await store.receiveCarrierEvent(again)
            #expect(redelivered == CarrierEventReceipt(id: first.id, isNew: false))
            let events = try await store.recentCarrierEvents(merchantID: fixture.merchant.id, limit: 10)
            #expect(events.count == 1)
            let event = try #require(events.first)
            #expect(event.trackingNumber == "1Z999AA10123456784", "stored trimmed, as given otherwise")
            #expect(event.event == Self.event("evt-1").event && event.state == .pending && event.attempts == 0)
            #expect(event.provider == "aftership" && event.merchantID == fixture.merchant.id, "the connection's provider and merchant")

            // The same key on another connection is another event.
            try await store.addCarrierConnection(Self.connection("conn-b", merchantID: fixture.merchant.id, provider: "easypost"))
            #expect(try await store.receiveCarrierEvent(Self.event("evt-1", connectionID: "conn-b")).isNew)

            await #expect(throws: OrderStoreError.carrierConnectionNotFound(id: "conn-gone")) {
                try await store.receiveCarrierEvent(Self.event("evt-2", connectionID: "conn-gone"))
            }
            await #expect(throws: OrderStoreError.self) {
                try await store.receiveCarrierEvent(Self.event("evt-3", trackingNumber: "  "))
            }
        }
    }

    /// Deliveries at the same time share transactions (a group commit), and each still gets its own answer: new, a
    /// redelivery (also of an event in the same batch), or its connection's absence; none stored twice, none lost.
    @Test func concurrentDeliveriesShareTransactionsAndEachGetsItsOwnAnswer() async throws {
        try await withStore { store, _ in
            let (fixture, _) = try await Self.prepare(store)
            let first = try await store.receiveCarrierEvent(Self.event("old"))
            let keys = (0..<300).map { "k\($0 % 200)" } + ["old"]
            let answers = try await withThrowingTaskGroup(of: (String, Result<CarrierEventReceipt, OrderStoreError>).self) { group in
                for (index, key) in keys.enumerated() {
                    group.addTask {
                        do {
                            return (key, .success(try await store.receiveCarrierEvent(Self.event(key, trackingNumber: "T-\(index % 200)"))))
                        } catch let error as OrderStoreError {
                            return (key, .failure(error))
                        }
                    }
                }
                for index in 0..<20 {
                    group.addTask {
                        do {
                            return ("gone", .success(try await store.receiveCarrierEvent(Self.event("g\(index)", connectionID: "conn-gone"))))
                        } catch let error as OrderStoreError {
                            return ("gone", .failure(error))
                        }
                    }
                }
                return try await group.reduce(into: [(String, Result<CarrierEventReceipt, OrderStoreError>)]()) { $0.append($1) }
            }
            let gone = answers.filter { $0.0 == "gone" }.map(\.1)
            #expect(gone.count == 20 && gone.allSatisfy { $0 == .failure(.carrierConnectionNotFound(id: "conn-gone")) })
            var ids: [String: Set<Int64>] = [:]
            var new: [String: Int] = [:]
            for (key, answer) in answers where key != "gone" {
                let receipt = try answer.get()
                ids[key, default: []].insert(receipt.id)
                if receipt.isNew { new[key, default: 0] += 1 }
            }
            #expect(ids.count == 201 && ids.values.allSatisfy { $0.count == 1 }, "every delivery of a key answers the one row's id")
            #expect(new.count == 200 && new.values.allSatisfy { $0 == 1 }, "each key stored once, as new once")
            #expect(ids["old"] == [first.id] && new["old"] == nil)
            let stored = try await store.recentCarrierEvents(merchantID: fixture.merchant.id, limit: 500)
            #expect(stored.count == 201 && Set(stored.map(\.id)) == Set(ids.values.flatMap { $0 }))
            let k7 = try #require(stored.first { $0.idempotencyKey == "k7" })
            #expect(k7.trackingNumber == "T-7" && k7.state == .pending && k7.provider == "aftership" && k7.merchantID == fixture.merchant.id)
        }
    }

    @Test func claimsLeaseEventsOldestFirstAndAnExpiredLeaseIsClaimedAgain() async throws {
        let clock = TestClock()
        try await withStore(now: { clock.date }) { store, _ in
            let (fixture, order) = try await Self.prepare(store)
            var ids: [Int64] = []
            for key in ["e1", "e2", "e3"] { ids.append(try await store.receiveCarrierEvent(Self.event(key)).id) }

            #expect(try await store.pendingCarrierEventCount() == 3)
            let first = try await store.claimCarrierEvents(limit: 2, leaseDuration: 30)
            #expect(first.map(\.id) == Array(ids.prefix(2)) && first.allSatisfy { $0.attempts == 1 && $0.claimedUntil != nil })
            #expect(try await store.pendingCarrierEventCount() == 3, "claimed events are still to apply")
            #expect(try await store.claimCarrierEvents(limit: 10, leaseDuration: 30).map(\.id) == [ids[2]], "leased events are not handed out")
            #expect(try await store.claimCarrierEvents(limit: 10, leaseDuration: 30).isEmpty)

            // The claimer of the first two dies; its leases run out.
            clock.advance(by: .seconds(31))
            let reclaimed = try await store.claimCarrierEvents(limit: 10, leaseDuration: 30)
            #expect(reclaimed.map(\.id) == ids && reclaimed.map(\.attempts) == [2, 2, 2])
            #expect(
                try await store.finishCarrierEvent(id: ids[0], attempt: 1, state: .applied, outcome: "late", match: nil) == nil,
                "the dead claimer's finish is refused")
            let match = CarrierEventMatch(order: order, fulfillmentIdentifier: "F1")
            #expect(try await store.finishCarrierEvent(id: ids[0], attempt: 2, state: .applied, outcome: "onTheWay", match: match) == .applied)
            #expect(try await store.finishCarrierEvent(id: ids[0], attempt: 2, state: .failed, outcome: "again", match: nil) == nil)
            #expect(try await store.finishCarrierEvent(id: ids[1], attempt: 2, state: .ignored, outcome: "older scan", match: match) == .ignored)
            #expect(try await store.pendingCarrierEventCount() == 1, "finished events leave the backlog")
            await #expect(throws: OrderStoreError.self) {
                try await store.finishCarrierEvent(id: ids[2], attempt: 2, state: .pending, outcome: "", match: nil)
            }

            clock.advance(by: .seconds(31))
            #expect(try await store.claimCarrierEvents(limit: 10, leaseDuration: 30).map(\.id) == [ids[2]], "finished events are never claimed")
            let recent = try await store.recentCarrierEvents(merchantID: fixture.merchant.id, limit: 2)
            #expect(recent.map(\.id) == [ids[2], ids[1]], "newest first")
            let applied = try #require(try await store.recentCarrierEvents(merchantID: fixture.merchant.id, limit: 3).last)
            #expect(applied.state == .applied && applied.match == match && applied.outcome == "onTheWay" && applied.claimedUntil == nil)
            #expect(applied.appliedAt == milliseconds(clock.date.addingTimeInterval(-31)))
        }
    }

    @Test func aBatchOfFinishesKeepsEachClaimsAnswerAndRecordsTheLatestScanOfAFulfillment() async throws {
        let clock = TestClock()
        try await withStore(now: { clock.date }) { store, _ in
            let (fixture, order) = try await Self.prepare(store)
            _ = try await store.replaceFulfillmentTracking(
                order: order, merchantID: fixture.merchant.id,
                entries: [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "1Z999AA10123456784", carrier: "ups")])
            var ids: [Int64] = []
            for key in ["e1", "e2", "e3", "e4"] { ids.append(try await store.receiveCarrierEvent(Self.event(key)).id) }
            let claimed = try await store.claimCarrierEvents(limit: 10, leaseDuration: 30)
            #expect(claimed.map(\.id) == ids)
            let match = CarrierEventMatch(order: order, fulfillmentIdentifier: "F1")
            let early = Date(millisecondsSince1970: 1_800_000_000_000)
            let late = early.addingTimeInterval(3600)
            // Two scans of one fulfillment, finished out of order; a finish whose claim is not the event's; an unmatched one.
            let ended = try await store.finishCarrierEvents([
                CarrierEventFinish(id: ids[1], attempt: 1, state: .applied, outcome: "late scan", match: match, scannedAt: late),
                CarrierEventFinish(id: ids[0], attempt: 1, state: .applied, outcome: "early scan", match: match, scannedAt: early),
                CarrierEventFinish(id: ids[2], attempt: 7, state: .ignored, outcome: "not mine", match: match),
                CarrierEventFinish(id: ids[3], attempt: 1, state: .unmatched, outcome: "nothing has it", candidates: 1),
            ])
            #expect(ended == [.applied, .applied, nil, .unmatched])
            #expect(try await store.trackedFulfillments(order: order).map(\.lastScanAt) == [late], "the latest scan, whatever the order")
            let events = try await store.recentCarrierEvents(merchantID: fixture.merchant.id, limit: 4).sorted { $0.id < $1.id }
            #expect(events.map(\.state) == [.applied, .applied, .pending, .unmatched])
            #expect(
                events.map(\.outcome) == ["early scan", "late scan", nil, "nothing has it"] && events[0].match == match && events[1].match == match)
            #expect(events[0].appliedAt == milliseconds(clock.date) && events[2].appliedAt == nil && events[2].claimedUntil != nil)
        }
    }

    @Test func concurrentClaimersNeverGetTheSameEvent() async throws {
        try await withStore { store, _ in
            _ = try await Self.prepare(store)
            let count = 300
            for index in 0..<count { _ = try await store.receiveCarrierEvent(Self.event("e\(index)")) }
            let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var mine: [Int64] = []
                        while case let events = try await store.claimCarrierEvents(limit: 7, leaseDuration: 60), !events.isEmpty {
                            mine += events.map(\.id)
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(claimed.count == count && Set(claimed).count == count, "every event once")
        }
    }

    @Test func anUnmatchedEventWaitsForItsTrackingNumberAndIsMatchedOnlyExactly() async throws {
        try await withStore { store, _ in
            let (fixture, order) = try await Self.prepare(store)
            let other = try await Fixture.make(store, orderType: "order.com.example.other")
            try await store.createOrder(other.order("B1"))
            let received = try await store.receiveCarrierEvent(Self.event("e1", trackingNumber: "TRK-AbC"))
            let claim = try #require(try await store.claimCarrierEvents(limit: 1, leaseDuration: 60).first)
            #expect(
                try await store.finishCarrierEvent(id: claim.id, attempt: claim.attempts, state: .unmatched, outcome: "no fulfillment", match: nil)
                    == .unmatched)
            #expect(try await store.unmatchedCarrierEvents(merchantID: fixture.merchant.id, trackingNumber: " TRK-AbC ").map(\.id) == [received.id])
            #expect(try await store.unmatchedCarrierEvents(merchantID: fixture.merchant.id, trackingNumber: "TRK-ABC").isEmpty, "case matters")
            #expect(try await store.unmatchedCarrierEvents(merchantID: other.merchant.id, trackingNumber: "TRK-AbC").isEmpty)
            #expect(try await store.claimCarrierEvents(limit: 1, leaseDuration: 60).isEmpty)

            // Another merchant's fulfillment with the same number wakes nothing.
            let otherOrder = OrderKey(orderTypeIdentifier: other.orderType, orderIdentifier: "B1")
            #expect(
                try await store.replaceFulfillmentTracking(
                    order: otherOrder, merchantID: other.merchant.id,
                    entries: [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "TRK-AbC", carrier: nil)]) == 0)
            #expect(
                try await store.replaceFulfillmentTracking(
                    order: order, merchantID: fixture.merchant.id,
                    entries: [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "TRK-AbC ", carrier: "ups")]) == 1)
            #expect(try await store.unmatchedCarrierEvents(merchantID: fixture.merchant.id, trackingNumber: "TRK-AbC").isEmpty)
            let again = try #require(try await store.claimCarrierEvents(limit: 1, leaseDuration: 60).first)
            #expect(again.id == received.id && again.attempts == 2)
            let found = try await store.trackedFulfillments(merchantID: fixture.merchant.id, trackingNumber: "TRK-AbC")
            #expect(found.map(\.order) == [order] && found.first?.entry.carrier == "ups")
            #expect(try await store.trackedFulfillments(merchantID: fixture.merchant.id, trackingNumber: "trk-abc").isEmpty)

            // A fulfillment that gets the number while the worker looks for it: finishing unmatched puts it back.
            _ = try await store.receiveCarrierEvent(Self.event("e2", trackingNumber: "TRK-2"))
            let racing = try #require(try await store.claimCarrierEvents(limit: 1, leaseDuration: 60).first)
            #expect(racing.trackingNumber == "TRK-2")
            try await store.replaceFulfillmentTracking(
                order: order, merchantID: fixture.merchant.id,
                entries: [
                    FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "TRK-AbC", carrier: "ups"),
                    FulfillmentTrackingEntry(fulfillmentIdentifier: "F2", trackingNumber: "TRK-2", carrier: nil),
                ])
            #expect(
                try await store.finishCarrierEvent(id: racing.id, attempt: racing.attempts, state: .unmatched, outcome: "none", match: nil)
                    == .pending)
            #expect(try await store.claimCarrierEvents(limit: 5, leaseDuration: 60).map(\.id) == [racing.id])
        }
    }

    /// A worker finishing events unmatched while order writes give fulfillments their tracking numbers, at the same
    /// time (PostgreSQL: on separate connections): no event is left waiting for a number a fulfillment has.
    @Test func anEventFinishedUnmatchedWhileItsNumberArrivesIsNotStranded() async throws {
        try await withStore { store, _ in
            let (fixture, _) = try await Self.prepare(store)
            let count = 40
            try await store.insertOrders((0..<count).map { fixture.order("R\($0)") })
            for index in 0..<count { _ = try await store.receiveCarrierEvent(Self.event("r\(index)", trackingNumber: "RACE-\(index)")) }
            let claims = try await store.claimCarrierEvents(limit: count, leaseDuration: 60)
            try #require(claims.count == count)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for claim in claims {
                    let index = try #require(Int(claim.trackingNumber.dropFirst("RACE-".count)))
                    group.addTask {
                        _ = try await store.finishCarrierEvent(id: claim.id, attempt: claim.attempts, state: .unmatched, outcome: "none", match: nil)
                    }
                    group.addTask {
                        try await store.replaceFulfillmentTracking(
                            order: OrderKey(orderTypeIdentifier: fixture.orderType, orderIdentifier: "R\(index)"), merchantID: fixture.merchant.id,
                            entries: [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: claim.trackingNumber, carrier: nil)])
                    }
                }
                try await group.waitForAll()
            }
            let states = try await store.recentCarrierEvents(merchantID: fixture.merchant.id, limit: count).map(\.state)
            #expect(states.count == count && states.allSatisfy { $0 == .pending }, "\(states.filter { $0 != .pending })")
        }
    }

    @Test func scansOnlyMoveForwardAndANewTrackingNumberForgetsTheOld() async throws {
        try await withStore { store, _ in
            let (fixture, order) = try await Self.prepare(store)
            let other = try await store.createMerchant(name: "Other")
            let entries = [
                FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T1", carrier: "ups"),
                FulfillmentTrackingEntry(fulfillmentIdentifier: "F2", trackingNumber: "T2", carrier: nil),
            ]
            try await store.replaceFulfillmentTracking(order: order, merchantID: fixture.merchant.id, entries: entries)
            let t1 = milliseconds(Date(timeIntervalSince1970: 1_800_000_000))
            let t2 = t1.addingTimeInterval(3_600)
            #expect(try await store.recordFulfillmentScan(order: order, fulfillmentIdentifier: "F1", at: t2))
            #expect(try await store.recordFulfillmentScan(order: order, fulfillmentIdentifier: "F1", at: t1) == false, "an older scan")
            #expect(try await store.recordFulfillmentScan(order: order, fulfillmentIdentifier: "F1", at: t2), "the same time is not older")
            #expect(try await store.recordFulfillmentScan(order: order, fulfillmentIdentifier: "F9", at: t2) == false, "not tracked")
            #expect(try await store.trackedFulfillments(order: order).map(\.lastScanAt) == [t2, nil])

            // The same number keeps its last scan, a new one (a new parcel) starts afresh, a dropped fulfillment goes.
            try await store.replaceFulfillmentTracking(order: order, merchantID: fixture.merchant.id, entries: entries)
            #expect(try await store.trackedFulfillments(order: order).map(\.lastScanAt) == [t2, nil])
            try await store.replaceFulfillmentTracking(
                order: order, merchantID: fixture.merchant.id,
                entries: [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T1-new", carrier: "dhl")])
            let tracked = try await store.trackedFulfillments(order: order)
            #expect(tracked.map(\.entry) == [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T1-new", carrier: "dhl")])
            #expect(tracked.map(\.lastScanAt) == [nil])
            #expect(try await store.trackedFulfillments(merchantID: fixture.merchant.id, trackingNumber: "T2").isEmpty)

            await #expect(throws: OrderStoreError.orderNotFound(orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: "A1")) {
                try await store.replaceFulfillmentTracking(order: order, merchantID: other.id, entries: [])
            }
            await #expect(throws: OrderStoreError.self) {
                try await store.replaceFulfillmentTracking(order: order, merchantID: fixture.merchant.id, entries: entries + entries)
            }
            try await store.replaceFulfillmentTracking(order: order, merchantID: fixture.merchant.id, entries: [])
            #expect(try await store.trackedFulfillments(order: order).isEmpty)
        }
    }

    @Test func aBatchReadFindsEachTrackingNumbersFulfillmentsWithTheirOrdersOfOneMerchantOnly() async throws {
        try await withStore { store, _ in
            let (fixture, order) = try await Self.prepare(store)
            try await store.createOrder(fixture.order("A2", document: #"{"status":"open","n":2}"#))
            let second = OrderKey(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A2")
            let other = try await Fixture.make(store, orderType: "order.com.example.other")
            try await store.createOrder(other.order("B1"))
            let otherOrder = OrderKey(orderTypeIdentifier: other.orderType, orderIdentifier: "B1")
            try await store.replaceFulfillmentTracking(
                order: order, merchantID: fixture.merchant.id,
                entries: [
                    FulfillmentTrackingEntry(fulfillmentIdentifier: "F2", trackingNumber: "T1", carrier: "ups"),
                    FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T2", carrier: nil),
                ])
            try await store.replaceFulfillmentTracking(
                order: second, merchantID: fixture.merchant.id,
                entries: [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T1", carrier: "dhl")])
            try await store.replaceFulfillmentTracking(
                order: otherOrder, merchantID: other.merchant.id,
                entries: [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T1", carrier: nil)])

            let found = try await store.trackedOrders(merchantID: fixture.merchant.id, trackingNumbers: ["T1", " T2 ", "T3", "T1"])
            #expect(found.map(\.fulfillment.entry.trackingNumber) == ["T1", "T1", "T2"], "by tracking number, each once; none for T3")
            #expect(found.map(\.fulfillment.order) == [order, second, order])
            #expect(found.map(\.fulfillment.entry.fulfillmentIdentifier) == ["F2", "F1", "F1"])
            #expect(found.map(\.order.key) == found.map(\.fulfillment.order), "each with its own order")
            #expect(try await found[1].order == store.order(type: second.orderTypeIdentifier, id: second.orderIdentifier))
            #expect(try await store.trackedOrders(merchantID: other.merchant.id, trackingNumbers: ["T1"]).map(\.order.key) == [otherOrder])
            #expect(try await store.trackedOrders(merchantID: fixture.merchant.id, trackingNumbers: []).isEmpty)
        }
    }

    @Test func anUpdateRecordsItsScanInItsTransactionAndANewerScanRefusesIt() async throws {
        try await withStore { store, _ in
            let (fixture, order) = try await Self.prepare(store)
            let entry = FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T1", carrier: "ups")
            try await store.replaceFulfillmentTracking(order: order, merchantID: fixture.merchant.id, entries: [entry])
            let t1 = milliseconds(Date(timeIntervalSince1970: 1_800_000_000))
            let t2 = t1.addingTimeInterval(3_600)
            func update(version: Int, scan: FulfillmentScan, tracking: [FulfillmentTrackingEntry]? = nil) async throws -> OrderRecord {
                try await store.updateOrder(
                    type: order.orderTypeIdentifier, id: order.orderIdentifier, expectedVersion: version,
                    document: Array(#"{"status":"open","v":\#(version)}"#.utf8), status: "open", orderNumber: nil, renumberedFor: nil,
                    updatedAt: Date(), note: ChangeNote(author: "carrier:generic"), authenticationToken: nil, tracking: tracking, scan: scan)
            }
            // The scan is the fulfillment's last one with the new version.
            let second = try await update(version: 1, scan: FulfillmentScan(fulfillmentIdentifier: "F1", at: t2, wasTracked: true))
            #expect(second.version == 2)
            #expect(try await store.trackedFulfillments(order: order).map(\.lastScanAt) == [t2])
            // An older scan decided before the newer one was recorded writes nothing: no version, no activity (nor push).
            let entries = try await Self.rows(store, "order_activity")
            await #expect(
                throws: OrderStoreError.scanSuperseded(
                    orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier, fulfillmentIdentifier: "F1")
            ) {
                try await update(version: 2, scan: FulfillmentScan(fulfillmentIdentifier: "F1", at: t1, wasTracked: true))
            }
            #expect(try await store.order(type: order.orderTypeIdentifier, id: order.orderIdentifier)?.version == 2)
            #expect(try await Self.rows(store, "order_activity") == entries, "no activity entry")
            #expect(try await store.trackedFulfillments(order: order).map(\.lastScanAt) == [t2])
            // A fulfillment found by the order reference gets its number in the update, and the scan after it.
            let renumbered = FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T9", carrier: "ups")
            let third = try await update(
                version: 2, scan: FulfillmentScan(fulfillmentIdentifier: "F1", at: t1, wasTracked: false), tracking: [renumbered])
            #expect(third.version == 3)
            let tracked = try await store.trackedFulfillments(order: order)
            #expect(tracked.map(\.entry) == [renumbered] && tracked.map(\.lastScanAt) == [t1])
        }
    }

    @Test func deletingTheMerchantOrTheOrderTypeDeletesItsCarrierRows() async throws {
        try await withStore { store, _ in
            let (fixture, order) = try await Self.prepare(store)
            let kept = try await Fixture.make(store, orderType: "order.com.example.kept")
            try await store.createOrder(kept.order("K1"))
            try await store.addCarrierConnection(Self.connection("conn-k", merchantID: kept.merchant.id))
            _ = try await store.receiveCarrierEvent(Self.event("k1", connectionID: "conn-k"))
            let keptOrder = OrderKey(orderTypeIdentifier: kept.orderType, orderIdentifier: "K1")
            let entry = FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T1", carrier: nil)
            try await store.replaceFulfillmentTracking(order: keptOrder, merchantID: kept.merchant.id, entries: [entry])

            try await store.replaceFulfillmentTracking(order: order, merchantID: fixture.merchant.id, entries: [entry])
            _ = try await store.deleteOrderType(fixture.orderType, merchantID: fixture.merchant.id, force: true)
            #expect(try await store.trackedFulfillments(order: order).isEmpty, "an order's tracking goes with it")
            _ = try await store.receiveCarrierEvent(Self.event("e1"))
            _ = try await store.deleteMerchant(id: fixture.merchant.id, force: true)
            #expect(try await store.carrierConnections(merchantID: fixture.merchant.id).isEmpty)
            #expect(try await store.recentCarrierEvents(merchantID: fixture.merchant.id, limit: 10).isEmpty)
            #expect(try await Self.rows(store, "carrier_connections") == 1)
            #expect(try await Self.rows(store, "carrier_events") == 1)
            #expect(try await store.trackedFulfillments(order: keptOrder).count == 1, "the other merchant's rows stay")
        }
    }

    @Test func retentionDeletesOnlyOldAppliedAndIgnoredEvents() async throws {
        let clock = TestClock()
        try await withStore(now: { clock.date }) { store, _ in
            let (fixture, _) = try await Self.prepare(store)
            for (key, state) in [("applied", CarrierEventState.applied), ("ignored", .ignored), ("unmatched", .unmatched), ("failed", .failed)] {
                _ = try await store.receiveCarrierEvent(Self.event(key, trackingNumber: "T-\(key)"))
                let claim = try #require(try await store.claimCarrierEvents(limit: 1, leaseDuration: 60).first)
                _ = try await store.finishCarrierEvent(id: claim.id, attempt: claim.attempts, state: state, outcome: key, match: nil)
            }
            clock.advance(by: .seconds(3_600))
            let cutoff = clock.date
            _ = try await store.receiveCarrierEvent(Self.event("recent"))
            let recent = try #require(try await store.claimCarrierEvents(limit: 1, leaseDuration: 60).first)
            _ = try await store.finishCarrierEvent(id: recent.id, attempt: recent.attempts, state: .applied, outcome: "recent", match: nil)
            #expect(try await store.deleteCarrierEvents(before: cutoff) == 2)
            let left = try await store.recentCarrierEvents(merchantID: fixture.merchant.id, limit: 10)
            #expect(Set(left.map(\.idempotencyKey)) == ["unmatched", "failed", "recent"])
        }
    }

    /// The worker's claim reads the pending events in index order, and a scan finds its fulfillments by index, however
    /// many rows the tables hold and however many applied events still have entries in the claim's index.
    @Test func theClaimAndTheTrackingLookupUseTheirIndexes() async throws {
        try await withStore { store, _ in
            let (fixture, _) = try await Self.prepare(store)
            let now = Date().millisecondsSince1970
            try await store.insertOrders((0..<3_000).map { fixture.order("bulk-\($0)") })
            // An event's size as the server stores it (a normalized event is a few hundred bytes of JSON): PostgreSQL
            // weighs reading the table against probing it by id by its pages.
            let event = Data(String(repeating: "x", count: 300).utf8)
            try await store.write("generate carrier rows") { db in
                for chunk in Array(0..<5_000).chunked(into: 500) {
                    var insert = db.insert(into: "carrier_events").columns(
                        "connection_id", "merchant_id", "idempotency_key", "provider", "tracking_number", "occurred_at", "event", "state", "attempts",
                        "received_at")
                    for index in chunk {
                        insert = insert.values(
                            "conn-a", fixture.merchant.id, "bulk-\(index)", "aftership", "T\(index)", now, event, "pending", 1, now)
                    }
                    try await insert.run()
                }

                for chunk in Array(0..<3_000).chunked(into: 500) {
                    var insert = db.insert(into: "fulfillment_tracking").columns(
                        "order_type_identifier", "order_identifier", "fulfillment_identifier", "merchant_id", "tracking_number")
                    for index in chunk { insert = insert.values(fixture.orderType, "bulk-\(index)", "F1", fixture.merchant.id, "T\(index)") }
                    try await insert.run()
                }
            }
            // Statistics taken while every event was pending, as autovacuum's last look before a burst was applied; then
            // applied as the worker applies them, each leaving its pending row version behind until a vacuum.
            if TestDatabase.usesPostgres { try await store.write("analyze") { try await $0.raw("ANALYZE carrier_events").run() } }
            try await store.write("apply") {
                try await $0.raw("UPDATE carrier_events SET state = 'applied' WHERE tracking_number NOT LIKE '%00'").run()
            }
            let queries: [(name: String, query: SQLQueryString, index: String)] = [
                (
                    "claim",
                    SQLOrderStore.carrierClaimQuery(now: now, leaseUntil: now + 60_000, limit: 50, skipLocked: store.backend.skipLockedClause),
                    "carrier_events_due"
                ),
                (
                    "tracking lookup", SQLOrderStore.trackingLookupQuery(merchantID: fixture.merchant.id, trackingNumber: "T42"),
                    "fulfillment_tracking_number"
                ),
            ]
            for entry in queries {
                // The claim as the store runs it, on the statistics from before the events were applied.
                let plan =
                    entry.name == "claim"
                    ? try await store.claimPlan(of: entry.query) : try await store.plan(analyze: true) { _ in entry.query }
                let text = plan.joined(separator: "\n")
                #expect(text.contains(entry.index), "\(entry.name): \(entry.index) in plan:\n\(text)")
                if entry.name == "claim" {
                    #expect(!text.contains("Bitmap") && !text.contains("Sort") && !text.contains("TEMP B-TREE"), "\(entry.name):\n\(text)")
                }
                #expect(!text.contains("Seq Scan on carrier_events") && !text.contains("Seq Scan on fulfillment_tracking"), "\(entry.name):\n\(text)")
                // SQLite reads the whole partial index in order: the pending events only.
                #expect(
                    !plan.contains {
                        ($0.hasPrefix("SCAN carrier_events") && !$0.contains("USING INDEX carrier_events_due"))
                            || $0.hasPrefix("SCAN fulfillment_tracking")
                    },
                    "\(entry.name):\n\(text)")
            }
            let claimed = try await store.claimCarrierEvents(limit: 100, leaseDuration: 60)
            #expect(Set(claimed.map(\.trackingNumber)) == Set(stride(from: 100, to: 5_000, by: 100).map { "T\($0)" }))
        }
    }
}

extension CarrierConnectionRecord {
    fileprivate func with(createdAt: Date) -> CarrierConnectionRecord {
        var copy = self
        copy.createdAt = createdAt
        return copy
    }
}
