import Synchronization
import Testing

@testable import OrderPersistence

@Suite struct GroupCommitTests {
    struct Refused: Error, Equatable {}

    /// A commit that records each batch and holds the first one until released, so the others queue behind it.
    final class Recorder: Sendable {
        let batches = Mutex<[[Int]]>([])
        let firstHeld: AsyncStream<Void>
        let release: AsyncStream<Void>.Continuation
        let started: AsyncStream<Void>.Continuation
        let startedStream: AsyncStream<Void>

        init() {
            (firstHeld, release) = AsyncStream.makeStream()
            (startedStream, started) = AsyncStream.makeStream()
        }

        func commit(_ items: [Int]) async throws -> [Result<Int, any Error>] {
            let isFirst = batches.withLock { batches in
                batches.append(items)
                return batches.count == 1
            }
            if isFirst {
                started.yield()
                var iterator = firstHeld.makeAsyncIterator()
                _ = await iterator.next()
            }
            if items.contains(13) { throw Refused() }
            return items.map { $0 % 5 == 0 ? .failure(Refused()) : .success($0 * 10) }
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
        #expect(batches.first == [1])
        #expect(batches.dropFirst().map(\.count) == [8, 8, 4], "the waiting ones in batches of at most 8: \(batches)")
        #expect(batches.flatMap { $0 }.sorted() == Array(1...21), "each item committed once")
        for item in 1...21 {
            let batch = try #require(batches.first { $0.contains(item) })
            let expected: Result<Int, Refused> = batch.contains(13) || item % 5 == 0 ? .failure(Refused()) : .success(item * 10)
            #expect(results[item] == expected, "item \(item)")
        }
        // Idle again: a lone submission commits at once, by itself.
        #expect(try await commits.submit(42, commit: recorder.commit) == 420)
        #expect(recorder.batches.withLock { $0.last } == [42])
    }

    static func result(_ body: () async throws -> Int) async -> Result<Int, Refused> {
        do { return .success(try await body()) } catch { return .failure(Refused()) }
    }
}
