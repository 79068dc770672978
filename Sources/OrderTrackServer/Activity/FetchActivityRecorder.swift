import Foundation
import Logging
import OrderPersistence
import ServiceLifecycle
import Synchronization

/// Records devices' package fetches in the orders' activity, written behind.
///
/// Fetches are the hot path: a device fetching an order must not wait for a database write, nor should a burst of
/// fetches after a push become a burst of write transactions. So a fetch only notes itself in a bounded in-memory buffer
/// of this instance; this service writes the buffer in one transaction about every `interval`, and once more when the
/// server shuts down gracefully. Fetches of one version answered alike within one interval are one entry with their
/// number: the devices of a fan-out fetching together add a line a second to the transcript, not one each (nor a row
/// each to write). When the buffer is full (the database slower than the fetches for a while), further fetches are
/// dropped from the transcript and counted: the transcript is a diagnostic, never worth slowing devices. A crash loses
/// at most one interval of fetch lines.
final class FetchActivityRecorder: Service, Sendable {
    /// Entries kept in memory between two writes; beyond, fetches are dropped and counted.
    static let defaultCapacity = 10_000

    private struct Buffer {
        var entries: [OrderActivity] = []
        /// Each entry's position in `entries`, so that the same fetch again counts into it.
        var positions: [Fetch: Int] = [:]
        var dropped = 0
    }

    /// What makes two fetches the same line of the transcript.
    private struct Fetch: Hashable {
        var orderTypeIdentifier: String
        var orderIdentifier: String
        var version: Int
        var status: Int
    }

    private let store: any OrderActivityStore
    private let capacity: Int
    private let interval: Duration
    private let logger: Logger
    private let clock: ServerClock
    private let buffer = Mutex(Buffer())

    init(
        store: any OrderActivityStore, capacity: Int = defaultCapacity, interval: Duration = .seconds(1), logger: Logger,
        clock: ServerClock
    ) {
        self.store = store
        self.capacity = capacity
        self.interval = interval
        self.logger = logger
        self.clock = clock
    }

    /// Notes that a device was answered `status` (200 with the package, 304 when it has the latest) for this version.
    func fetched(_ order: OrderRecord, status: Int) {
        let fetch = Fetch(
            orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier, version: order.version, status: status)
        let now = clock.date
        buffer.withLock { buffer in
            if let position = buffer.positions[fetch] {
                buffer.entries[position].occurrences += 1
            } else if buffer.entries.count < capacity {
                buffer.positions[fetch] = buffer.entries.count
                buffer.entries.append(
                    OrderActivity(
                        orderTypeIdentifier: fetch.orderTypeIdentifier, orderIdentifier: fetch.orderIdentifier, kind: .fetched,
                        version: fetch.version, status: status, at: now))
            } else {
                buffer.dropped += 1
            }
        }
    }

    /// Entries recorded but not yet written, and fetches dropped since the last write.
    var backlog: (pending: Int, dropped: Int) { buffer.withLock { ($0.entries.count, $0.dropped) } }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await self.clock.sleep(for: self.interval)) != nil {
                await self.flush()
            }
        }
        // After the HTTP server stopped: the last fetches it answered are in the buffer.
        await flush()
    }

    /// Writes what the buffer holds in one transaction; on failure the entries are dropped (and counted) rather than
    /// kept to grow the buffer while the database is away.
    func flush() async {
        let (entries, dropped) = buffer.withLock { buffer in
            defer { buffer = Buffer() }
            return (buffer.entries, buffer.dropped)
        }
        if dropped > 0 {
            logger.warning("dropped package fetches from order activity: the buffer was full", metadata: ["dropped": .stringConvertible(dropped)])
        }
        do {
            try await store.appendActivity(entries)
        } catch {
            logger.warning(
                "could not record package fetches in order activity",
                metadata: ["entries": .stringConvertible(entries.count), "error": .string("\(error)")])
        }
    }
}
