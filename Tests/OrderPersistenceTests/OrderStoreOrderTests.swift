import Foundation
import Testing

@testable import OrderPersistence

@Suite struct OrderStoreOrderTests {
    @Test func createsReadsAndRejectsDuplicates() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let date = Date(timeIntervalSince1970: 1_750_000_000.123456)
            let created = try await store.createOrder(fixture.order("A", at: date))
            #expect(created.version == 1)
            #expect(created.changeSequence == 1)
            #expect(created.updatedAt == milliseconds(date))
            #expect(created.updatedAt.timeIntervalSince1970 == 1_750_000_000.123)

            let read = try #require(try await store.order(type: fixture.orderType, id: "A"))
            #expect(read == created)
            #expect(read.document == Array(#"{"status":"open"}"#.utf8))
            #expect(try await store.order(type: fixture.orderType, id: "B") == nil)

            await #expect(throws: OrderStoreError.orderAlreadyExists(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")) {
                try await store.createOrder(fixture.order("A"))
            }
            await #expect(throws: OrderStoreError.orderTypeNotFound(orderTypeIdentifier: "order.com.unknown")) {
                var order = fixture.order("C")
                order.orderTypeIdentifier = "order.com.unknown"
                try await store.createOrder(order)
            }
            // A failed create must not consume a change tag.
            let next = try await store.createOrder(fixture.order("D"))
            #expect(next.changeSequence == 2)
        }
    }

    @Test func ordersOfAnotherMerchantsTypeAreRefused() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let intruder = try await store.createMerchant(name: "Intruder")
            var order = fixture.order("X")
            order.merchantID = intruder.id
            await #expect(throws: OrderStoreError.orderTypeOwnedByAnotherMerchant(orderTypeIdentifier: fixture.orderType)) {
                try await store.createOrder(order)
            }
        }
    }

    @Test func optimisticUpdateBumpsVersionAndDetectsConflicts() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let start = Date(timeIntervalSince1970: 1_750_000_000)
            let created = try await store.createOrder(fixture.order("A", at: start))

            let later = start.addingTimeInterval(5)
            let updated = try await store.updateOrder(
                type: fixture.orderType, id: "A", expectedVersion: 1,
                document: Array(#"{"status":"completed"}"#.utf8), status: "completed", orderNumber: nil, updatedAt: later
            )
            #expect(updated.version == 2)
            #expect(updated.status == "completed")
            #expect(updated.updatedAt == later)
            #expect(updated.changeSequence > created.changeSequence)
            #expect(updated.createdAt == created.createdAt)
            #expect(try await store.order(type: fixture.orderType, id: "A") == updated)

            await #expect(
                throws: OrderStoreError.versionConflict(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A", expected: 1, actual: 2)
            ) {
                try await store.updateOrder(
                    type: fixture.orderType, id: "A", expectedVersion: 1, document: [], status: nil, orderNumber: nil, updatedAt: later)
            }
            await #expect(throws: OrderStoreError.orderNotFound(orderTypeIdentifier: fixture.orderType, orderIdentifier: "missing")) {
                try await store.updateOrder(
                    type: fixture.orderType, id: "missing", expectedVersion: 1, document: [], status: nil, orderNumber: nil, updatedAt: later)
            }
            // A clock that stepped back still yields a strictly later updatedAt.
            let stepped = try await store.updateOrder(
                type: fixture.orderType, id: "A", expectedVersion: 2, document: [1], status: nil, orderNumber: nil, updatedAt: start
            )
            #expect(stepped.updatedAt.millisecondsSince1970 == later.millisecondsSince1970 + 1)
            #expect(stepped.status == nil)
            #expect(stepped.version == 3)
        }
    }

    @Test func changeSequenceStrictlyIncreasesAcrossCreatesAndUpdates() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            var tags: [Int64] = []
            for index in 0..<10 {
                tags.append(try await store.createOrder(fixture.order("O\(index)")).changeSequence)
            }
            for index in 0..<10 {
                let updated = try await store.updateOrder(
                    type: fixture.orderType, id: "O\(index)", expectedVersion: 1, document: [UInt8(index)], status: nil, orderNumber: nil,
                    updatedAt: Date()
                )
                tags.append(updated.changeSequence)
            }
            #expect(tags == Array(1...20))
        }
    }

    /// Updates submitted at once share transactions (the group commit), whose tags are taken together: each order still
    /// gets a tag of its own, the tags continue the sequence without a gap, and each order's row holds the tag its
    /// update answered.
    @Test func updatesCommittedTogetherTakeConsecutiveTagsOfTheirOwn() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            for index in 0..<10 { _ = try await store.createOrder(fixture.order("O\(index)")) }
            let updated = try await withThrowingTaskGroup(of: OrderRecord.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try await store.updateOrder(
                            type: fixture.orderType, id: "O\(index)", expectedVersion: 1, document: [UInt8(index)], status: nil, orderNumber: nil,
                            updatedAt: Date())
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(updated.map(\.changeSequence).sorted() == Array(11...20))
            for order in updated {
                #expect(try await store.order(type: fixture.orderType, id: order.orderIdentifier)?.changeSequence == order.changeSequence)
            }
            let page = try await store.listOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: nil, orderNumber: nil, status: nil, updatedSince: nil, after: nil, limit: 20)
            #expect(page.orders.map(\.orderIdentifier) == (0..<10).map { "O\($0)" }, "creation order is kept")
        }
    }

    /// The group commit writes a batch of updates with a statement per kind of write: each update still gets its own
    /// answer, a failed one writes nothing of its own, an order's second update sees its first, and two renumberings
    /// to one number cannot both succeed.
    @Test func eachUpdateOfABatchGetsItsOwnAnswerAndAFailedOneWritesNothing() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let key = { (id: String) in OrderKey(orderTypeIdentifier: fixture.orderType, orderIdentifier: id) }
            for id in ["A", "B", "D", "E", "F", "G", "H", "I", "J", "K"] {
                var order = fixture.order(id)
                order.orderNumber = "N-\(id)"
                try await store.createOrder(order)
            }
            _ = try await store.updateOrder(
                type: fixture.orderType, id: "B", expectedVersion: 1, document: [1], status: nil, orderNumber: "N-B", updatedAt: Date())
            let t1 = milliseconds(Date(timeIntervalSince1970: 1_800_000_000))
            let t2 = t1.addingTimeInterval(3_600)
            for id in ["G", "H"] {
                try await store.replaceFulfillmentTracking(
                    order: key(id), merchantID: fixture.merchant.id,
                    entries: [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "T\(id)", carrier: nil)])
            }
            try await store.recordFulfillmentScan(order: key("G"), fulfillmentIdentifier: "F1", at: t2)
            _ = try await store.register(
                deviceLibraryIdentifier: "device-1", pushToken: "push-1", orderTypeIdentifier: fixture.orderType, orderIdentifier: "I")
            let activityBefore = try await CarrierStoreTests.rows(store, "order_activity")
            let updatedAt = Date()
            func update(
                _ id: String, _ version: Int, number: String? = nil, token: String? = nil, tracking: [FulfillmentTrackingEntry]? = nil,
                scan: FulfillmentScan? = nil
            ) -> SQLOrderStore.OrderUpdate {
                SQLOrderStore.OrderUpdate(
                    key: key(id), expectedVersion: version, document: Array(#"{"id":"\#(id)","v":\#(version)}"#.utf8), status: "open",
                    orderNumber: number ?? "N-\(id)", renumberedFor: number == nil ? nil : fixture.merchant.id, updatedAt: updatedAt,
                    note: ChangeNote(author: "test"), authenticationToken: token, tracking: tracking, scan: scan)
            }
            let newTracking = [FulfillmentTrackingEntry(fulfillmentIdentifier: "F1", trackingNumber: "TI", carrier: "ups")]
            let batch = [
                update("H", 1, scan: FulfillmentScan(fulfillmentIdentifier: "F1", at: t1, wasTracked: true)), // 0: its scan recorded
                update("A", 1), // 1
                update("B", 1), // 2: B is at version 2
                update("C", 1), // 3: no such order
                update("D", 1), // 4
                update("D", 2), // 5: D's second update, after its first
                update("E", 1, number: "N-A"), // 6: A keeps its number
                update("K", 1, number: "N-Z"), // 7: a renumbering to a number F takes first in the batch
                update("F", 1, number: "N-Z"), // 8
                update("G", 1, scan: FulfillmentScan(fulfillmentIdentifier: "F1", at: t1, wasTracked: true)), // 9: G has a newer scan
                update("I", 1, token: "token-I-rotated-0123456789", tracking: newTracking), // 10
                update("J", 1, tracking: newTracking, scan: FulfillmentScan(fulfillmentIdentifier: "F1", at: t1, wasTracked: false)), // 11
            ]
            let results = try await store.writeOrderUpdates(batch)
            #expect(results.count == batch.count)
            func failure(_ index: Int) -> OrderStoreError? {
                guard case .failure(let error) = results[index] else { return nil }
                return error as? OrderStoreError
            }
            #expect(failure(2) == .versionConflict(orderTypeIdentifier: fixture.orderType, orderIdentifier: "B", expected: 1, actual: 2))
            #expect(failure(3) == .orderNotFound(orderTypeIdentifier: fixture.orderType, orderIdentifier: "C"))
            #expect(failure(6) == .orderNumberExists(orderTypeIdentifier: fixture.orderType, orderNumber: "N-A", existingOrderIdentifier: "A"))
            #expect(failure(7) == .orderNumberExists(orderTypeIdentifier: fixture.orderType, orderNumber: "N-Z", existingOrderIdentifier: "F"))
            #expect(failure(9) == .scanSuperseded(orderTypeIdentifier: fixture.orderType, orderIdentifier: "G", fulfillmentIdentifier: "F1"))
            let written = [0, 1, 4, 5, 8, 10, 11]
            var tags: [Int64] = []
            for index in written {
                let order = try results[index].get()
                let stored = try #require(try await store.order(type: fixture.orderType, id: order.orderIdentifier))
                #expect(order.document == batch[index].document || order.orderIdentifier == "D", "\(order.orderIdentifier)")
                #expect(order.version == batch[index].expectedVersion + 1)
                #expect(order.status == "open" && order.orderNumber == batch[index].orderNumber)
                #expect(order.changeSequence == stored.changeSequence, "the row holds the tag the update answered")
                if order.orderIdentifier != "D" || order.version == 3 { #expect(stored == order) }
                tags.append(order.changeSequence)
            }
            #expect(Set(tags).sorted() == Array(Set(tags).sorted().first!...Set(tags).sorted().last!), "consecutive tags")
            #expect(Set(tags).count == 6, "one tag an order")
            #expect(try await store.order(type: fixture.orderType, id: "D")?.document == batch[5].document, "D's second update is its last")
            for (id, version) in [("B", 2), ("E", 1), ("G", 1), ("K", 1)] {
                let stored = try #require(try await store.order(type: fixture.orderType, id: id))
                #expect(stored.version == version && stored.orderNumber == "N-\(id)", "\(id) is as it was")
            }
            #expect(try await store.order(type: fixture.orderType, id: "I")?.authenticationToken == "token-I-rotated-0123456789")
            #expect(try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "I").isEmpty, "the old token's devices go")
            #expect(try await store.trackedFulfillments(order: key("H")).map(\.lastScanAt) == [t1])
            #expect(try await store.trackedFulfillments(order: key("G")).map(\.lastScanAt) == [t2])
            #expect(try await store.trackedFulfillments(order: key("I")).map(\.entry) == newTracking)
            let j = try await store.trackedFulfillments(order: key("J"))
            #expect(j.map(\.entry) == newTracking && j.map(\.lastScanAt) == [t1], "tracked from this update on, with its scan")
            let activityAfter = try await CarrierStoreTests.rows(store, "order_activity")
            #expect(activityAfter == activityBefore + written.count + 1, "an entry per written update and the device that went")
        }
    }

    @Test func paginationWalksEveryOrderOnceEvenWhileOrdersChange() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let other = try await Fixture.make(store, orderType: "order.com.example.other")
            let base = Date(timeIntervalSince1970: 1_750_000_000)
            try await store.insertOrders((0..<95).map { fixture.order("A\($0)", status: $0 % 3 == 0 ? "completed" : "open", at: base) })
            try await store.createOrder(other.order("foreign"))

            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await store.listOrders(
                    merchantID: fixture.merchant.id, orderTypeIdentifier: nil, orderNumber: nil, status: nil, updatedSince: nil, after: cursor,
                    limit: 10
                )
                seen += page.orders.map(\.orderIdentifier)
                // Updating an already listed order must not make it reappear later.
                if let first = page.orders.first {
                    _ = try await store.updateOrder(
                        type: first.orderTypeIdentifier, id: first.orderIdentifier, expectedVersion: first.version,
                        document: [], status: first.status, orderNumber: nil, updatedAt: Date()
                    )
                }
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil
            #expect(seen == (0..<95).map { "A\($0)" })
            #expect(pages == 10)

            let completed = try await store.listOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: fixture.orderType, orderNumber: nil, status: "completed",
                updatedSince: nil, after: nil, limit: 100
            )
            #expect(completed.orders.count == 32)
            #expect(completed.nextCursor == nil)

            let recent = try await store.listOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: nil, orderNumber: nil, status: nil,
                updatedSince: base.addingTimeInterval(1), after: nil, limit: 100
            )
            #expect(recent.orders.count == 10) // the first order of each page was updated just now
        }
    }

    @Test func badCursorsAndLimitsAreRefused() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            for cursor in ["", "not-a-cursor", "YzEuLTE"] {
                await #expect(throws: OrderStoreError.invalidCursor(cursor)) {
                    try await store.listOrders(
                        merchantID: fixture.merchant.id, orderTypeIdentifier: nil, orderNumber: nil, status: nil, updatedSince: nil, after: cursor,
                        limit: 10)
                }
            }
            for limit in [0, -1, 1001] {
                await #expect(throws: OrderStoreError.self) {
                    try await store.listOrders(
                        merchantID: fixture.merchant.id, orderTypeIdentifier: nil, orderNumber: nil, status: nil, updatedSince: nil, after: nil,
                        limit: limit)
                }
            }
            #expect(try ListCursor.orders.decode(ListCursor.orders.encode(123_456)) == 123_456)
        }
    }
}

@Test func millisecondTimestampsRoundTripExactly() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<10_000 {
        let milliseconds = Int64.random(in: 0...4_102_444_800_000, using: &generator)
        #expect(Date(millisecondsSince1970: milliseconds).millisecondsSince1970 == milliseconds)
    }
}
