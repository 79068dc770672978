import Foundation
import Testing

@testable import OrderPersistence

@Suite struct ConcurrencyStoreTests {
    @Test func concurrentRegistrationsAndUpdatesLoseAndDuplicateNothing() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let type = fixture.orderType
            let orderIDs = (0..<10).map { "O\($0)" }
            for id in orderIDs {
                try await store.createOrder(fixture.order(id))
            }

            let (outcomes, tags) = try await withThrowingTaskGroup(of: (RegistrationOutcome?, Int64?).self) { group in
                for index in 0..<100 {
                    let orderID = orderIDs[index % 10]
                    group.addTask {
                        let outcome = try await store.register(
                            deviceLibraryIdentifier: "device-\(index)", pushToken: "token-\(index)",
                            orderTypeIdentifier: type, orderIdentifier: orderID
                        )
                        return (outcome, nil)
                    }
                    group.addTask {
                        // Optimistic update with re-read and retry, as the server does.
                        while true {
                            let current = try #require(try await store.order(type: type, id: orderID))
                            do {
                                let updated = try await store.updateOrder(
                                    type: type, id: orderID, expectedVersion: current.version,
                                    document: Array("update \(index)".utf8), status: nil, orderNumber: nil, updatedAt: Date()
                                )
                                return (nil, updated.changeSequence)
                            } catch OrderStoreError.versionConflict {
                                continue
                            }
                        }
                    }
                }
                var outcomes: [RegistrationOutcome] = []
                var tags: [Int64] = []
                for try await (outcome, tag) in group {
                    if let outcome { outcomes.append(outcome) }
                    if let tag { tags.append(tag) }
                }
                return (outcomes, tags)
            }

            #expect(outcomes.count == 100)
            #expect(outcomes.allSatisfy { $0 == .created })
            #expect(tags.count == 100)
            #expect(Set(tags).count == 100)
            #expect(Set(tags) == Set((11...110).map(Int64.init)))
            var registrationCount = 0
            for id in orderIDs {
                let order = try #require(try await store.order(type: type, id: id))
                #expect(order.version == 11)
                let registrations = try await store.registrations(orderTypeIdentifier: type, orderIdentifier: id)
                #expect(registrations.count == 10)
                registrationCount += registrations.count
            }
            #expect(registrationCount == 100)
        }
    }

    @Test func concurrentCreatesOfOneOrderLetExactlyOneWin() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let results = await withTaskGroup(of: Result<OrderRecord, OrderStoreError>.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do { return .success(try await store.createOrder(fixture.order("same"))) } catch let error as OrderStoreError {
                            return .failure(error)
                        } catch { return .failure(.database(operation: "test", reason: "\(error)")) }
                    }
                }
                var results: [Result<OrderRecord, OrderStoreError>] = []
                for await result in group { results.append(result) }
                return results
            }
            let successes = results.compactMap { try? $0.get() }
            #expect(successes.count == 1)
            let failures = results.compactMap { result -> OrderStoreError? in
                if case .failure(let error) = result { return error }
                return nil
            }
            #expect(failures == Array(repeating: .orderAlreadyExists(orderTypeIdentifier: fixture.orderType, orderIdentifier: "same"), count: 19))
        }
    }

    @Test func concurrentReregistrationsWithNewTokensEndWithOneOfThem() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            try await store.createOrder(fixture.order("A"))
            let outcomes = try await withThrowingTaskGroup(of: RegistrationOutcome.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await store.register(
                            deviceLibraryIdentifier: "dev", pushToken: "tok\(index)", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
                    }
                }
                var outcomes: [RegistrationOutcome] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0 == .created }.count == 1)
            #expect(outcomes.filter { $0 == .alreadyRegistered(pushTokenReplaced: true) }.count == 49)
            #expect(try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A").count == 1)
        }
    }
    /// A request cancelled in the middle of a write (a client that hangs up) must leave no transaction open behind it:
    /// the writer connection goes back to the pool, and the next write on it must not find itself nested in a
    /// transaction nobody will finish. Cancellation lands at random points: before BEGIN, in the body, at COMMIT.
    @Test func writesCancelledAtAnyPointLeaveTheConnectionClean() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let type = fixture.orderType
            try await store.createOrder(fixture.order("O1"))
            for round in 0..<200 {
                let (writes, wrote) = AsyncStream.makeStream(of: Void.self)
                let writer = Task {
                    defer { wrote.finish() }
                    while !Task.isCancelled {
                        let current = try #require(try await store.order(type: type, id: "O1"))
                        _ = try await store.updateOrder(
                            type: type, id: "O1", expectedVersion: current.version, document: Array("round \(round)".utf8),
                            status: nil, orderNumber: nil, updatedAt: Date())
                        wrote.yield()
                    }
                }
                // Cancelled once it has finished a varying number of writes (none to nine): the writer is then somewhere in
                // its next one, wherever the scheduler has taken it by the time the cancellation lands.
                var finished = writes.makeAsyncIterator()
                for _ in 0..<round % 10 { _ = await finished.next() }
                writer.cancel()
                _ = await writer.result
                let current = try #require(try await store.order(type: type, id: "O1"))
                let updated = try await store.updateOrder(
                    type: type, id: "O1", expectedVersion: current.version, document: Array("after \(round)".utf8), status: nil,
                    orderNumber: nil, updatedAt: Date())
                #expect(updated.version == current.version + 1)
            }
        }
    }
}
