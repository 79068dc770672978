import Foundation
import Synchronization
import Testing

@testable import OrderPersistence

@Suite struct GroupCommitTests {
    struct Refused: Error, Equatable {}

    /// A commit that records each batch and holds the first `held` until released, so the others queue behind them.
    /// When `refuses`, a batch with 13 throws and multiples of 5 fail.
    final class Recorder: Sendable {
        let batches = Mutex<[[Int]]>([])
        let held: Int
        let refuses: Bool
        let firstHeld: AsyncStream<Void>
        let release: AsyncStream<Void>.Continuation
        let started: AsyncStream<Void>.Continuation
        let startedStream: AsyncStream<Void>

        init(held: Int = 1, refuses: Bool = true) {
            self.held = held
            self.refuses = refuses
            (firstHeld, release) = AsyncStream.makeStream()
            (startedStream, started) = AsyncStream.makeStream()
        }

        func commit(_ items: [Int]) async throws -> [Result<Int, any Error>] {
            let isHeld = batches.withLock { batches in
                batches.append(items)
                return batches.count <= held
            }
            if isHeld {
                started.yield()
                var iterator = firstHeld.makeAsyncIterator()
                _ = await iterator.next()
            }
            if refuses && items.contains(13) { throw Refused() }
            return items.map { refuses && $0 % 5 == 0 ? .failure(Refused()) : .success($0 * 10) }
        }
    }

    @Test func submissionsDuringACommitGoIntoTheNextBatchAndEachGetsItsOwnResult() async throws {
        let commits = GroupCommit<Int, Int>(maximumBatch: 8)
        let recorder = Recorder()
        let results = await withTaskGroup(of: (Int, Result<Int, Refused>).self) { group in
            group.addTask { (1, await Self.result { try await commits.submit(1, commit: recorder.commit) }) }
            var started = recorder.startedStream.makeAsyncIterator()
            _ = await started.next()
            // The first commit is under way: these 20 wait for it.
            for item in 2...21 {
                group.addTask { (item, await Self.result { try await commits.submit(item, commit: recorder.commit) }) }
            }
            while commits.waitingCount < 20 { await Task.yield() }
            recorder.release.yield()
            var results: [Int: Result<Int, Refused>] = [:]
            for await (item, result) in group { results[item] = result }
            return results
        }
        let batches = recorder.batches.withLock { $0 }
        // The waiting ones in batches of at most 8; the batch that throws is committed again item by item.
        #expect(batches.first == [1] && batches.filter { $0.count > 1 }.map(\.count) == [8, 8, 4], "\(batches)")
        let failing = try #require(batches.firstIndex { $0.count > 1 && $0.contains(13) })
        #expect(Array(batches[(failing + 1)...(failing + batches[failing].count)]) == batches[failing].map { [$0] }, "\(batches)")
        #expect(batches.indices.filter { $0 != failing }.flatMap { batches[$0] }.sorted() == Array(1...21), "each item committed once")
        for item in 1...21 {
            let expected: Result<Int, Refused> = item == 13 || item % 5 == 0 ? .failure(Refused()) : .success(item * 10)
            #expect(results[item] == expected, "item \(item)")
        }
        // Idle again: a lone submission commits at once, by itself.
        #expect(try await commits.submit(42, commit: recorder.commit) == 420)
        #expect(recorder.batches.withLock { $0.last } == [42])
    }

    @Test func batchesCommitSideBySideUpToTheLimitAndShareWhatWaits() async throws {
        let commits = GroupCommit<Int, Int>(maximumBatch: 32, concurrentBatches: 2)
        let recorder = Recorder(held: 2, refuses: false)
        let results = await withTaskGroup(of: (Int, Int?).self) { group in
            for item in 1...2 { group.addTask { (item, try? await commits.submit(item, commit: recorder.commit)) } }
            var started = recorder.startedStream.makeAsyncIterator()
            // Both first batches are committing at once; neither has returned.
            _ = await started.next()
            _ = await started.next()
            for item in 3...14 { group.addTask { (item, try? await commits.submit(item, commit: recorder.commit)) } }
            while commits.waitingCount < 12 { await Task.yield() }
            recorder.release.yield()
            recorder.release.yield()
            return await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        let committed = recorder.batches.withLock { $0 }
        #expect(committed.prefix(2).map(\.count) == [1, 1])
        // One writer would take all 12 in one batch; two split them, neither taking more than its share of 12.
        #expect(committed.dropFirst(2).allSatisfy { $0.count <= 7 } && committed.count >= 4, "\(committed)")
        #expect(committed.flatMap { $0 }.sorted() == Array(1...14), "each item committed once")
        #expect(results == Dictionary(uniqueKeysWithValues: (1...14).map { ($0, $0 * 10) }))
    }

    static func result(_ body: () async throws -> Int) async -> Result<Int, Refused> {
        do { return .success(try await body()) } catch { return .failure(Refused()) }
    }
}

/// Order updates written together (``GroupCommit`` inside ``SQLOrderStore/updateOrder``) keep each update's own answer.
@Suite struct BatchedOrderUpdateTests {
    @Test func concurrentUpdatesEachGetTheirOwnAnswerAndOnlyTheWrittenOnesQueuePushes() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            for index in 0..<40 {
                var order = fixture.order("o\(index)")
                order.orderNumber = "N\(index)"
                try await store.createOrder(order)
                _ = try await store.register(
                    deviceLibraryIdentifier: "device-\(index)", pushToken: "token-\(index)", orderTypeIdentifier: fixture.orderType,
                    orderIdentifier: "o\(index)")
            }
            // A device on two orders gets one job however many of its orders change together.
            _ = try await store.register(
                deviceLibraryIdentifier: "device-both", pushToken: "token-both", orderTypeIdentifier: fixture.orderType, orderIdentifier: "o1")
            _ = try await store.register(
                deviceLibraryIdentifier: "device-both", pushToken: "token-both", orderTypeIdentifier: fixture.orderType, orderIdentifier: "o2")
            // Orders 0-29 are updated from version 1; 30-34 from a version they are not at; 35-39 take order 0's number.
            let answers = await withTaskGroup(of: (Int, Result<OrderRecord, OrderStoreError>).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        do {
                            let number = index >= 35 ? "N0" : "N\(index)"
                            let updated = try await store.updateOrder(
                                type: fixture.orderType, id: "o\(index)", expectedVersion: (30..<35).contains(index) ? 7 : 1,
                                document: Array(#"{"status":"open","n":\#(index)}"#.utf8), status: "open", orderNumber: number,
                                renumberedFor: index >= 35 ? fixture.merchant.id : nil, updatedAt: Date(), note: ChangeNote(author: "test"),
                                authenticationToken: nil, tracking: nil, scan: nil)
                            return (index, .success(updated))
                        } catch {
                            return (index, .failure(error as? OrderStoreError ?? .storeClosed))
                        }
                    }
                }
                return await group.reduce(into: [Int: Result<OrderRecord, OrderStoreError>]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<30 {
                let updated = try #require(try answers[index]?.get(), "o\(index)")
                #expect(updated.version == 2 && updated.document == Array(#"{"status":"open","n":\#(index)}"#.utf8))
            }
            for index in 30..<35 {
                #expect(
                    answers[index]
                        == .failure(.versionConflict(orderTypeIdentifier: fixture.orderType, orderIdentifier: "o\(index)", expected: 7, actual: 1)))
            }
            for index in 35..<40 {
                #expect(
                    answers[index]
                        == .failure(.orderNumberExists(orderTypeIdentifier: fixture.orderType, orderNumber: "N0", existingOrderIdentifier: "o0")))
                #expect(try await store.order(type: fixture.orderType, id: "o\(index)")?.version == 1, "nothing of a refused update is written")
            }
            // Change sequences: one per written update, without gaps.
            let sequences = (0..<30).compactMap { try? answers[$0]?.get().changeSequence }.sorted()
            #expect(sequences.count == 30 && sequences.last! - sequences.first! == 29)
            #expect(try await store.latestChangeSequence(merchantID: fixture.merchant.id) == sequences.last)
            let jobs = try await store.claimPushJobs(limit: 100, leaseOwner: "test", leaseDuration: 60)
            #expect(Set(jobs.map(\.pushToken)) == Set((0..<30).map { "token-\($0)" } + ["token-both"]) && jobs.count == 31)
            for index in [0, 29] {
                let history = try await store.orderHistory(orderTypeIdentifier: fixture.orderType, orderIdentifier: "o\(index)", limit: 5)
                #expect(history.map(\.kind) == [.updated, .created] && history.first?.author == "test")
            }
            #expect(try await store.orderHistory(orderTypeIdentifier: fixture.orderType, orderIdentifier: "o31", limit: 5).map(\.kind) == [.created])
        }
    }
}
