import Foundation
import Logging
import OrderPersistence
import ServiceLifecycle
import Synchronization

/// Records when each API key was last used, written behind and at most once a minute per key.
///
/// Authentication is on every merchant request: it must neither wait for a write (a locked database would hold every
/// request up) nor make one per request. A use whose key was recorded less than ``interval`` ago is ignored (the key's
/// row says so, or this instance wrote it); other uses go to a small in-memory map that this service writes in one
/// transaction every few seconds and at shutdown. A crash loses at most one flush of last-use times.
final class APIKeyUseRecorder: Service, Sendable {
    /// How stale a listed last use may be.
    static let interval: TimeInterval = 60

    private struct State {
        /// Uses to write: key id → time.
        var pending: [String: Date] = [:]
        /// When this instance last noted each key, to skip uses within the interval.
        var noted: [String: Date] = [:]
    }

    private let store: any APIKeyStore
    private let flushInterval: Duration
    private let logger: Logger
    private let state = Mutex(State())
    private let clock: ServerClock

    init(store: any APIKeyStore, flushInterval: Duration = .seconds(5), logger: Logger, clock: ServerClock) {
        self.store = store
        self.clock = clock
        self.flushInterval = flushInterval
        self.logger = logger
    }

    /// Notes a use of `key` at `date`; cheap, never waits.
    func used(_ key: APIKeyInfo, at date: Date) {
        let earliest = date.addingTimeInterval(-Self.interval)
        if let last = key.lastUsedAt, last > earliest { return }
        state.withLock { state in
            if let last = state.noted[key.id], last > earliest { return }
            // Bounded by the keys used within one interval.
            if state.noted.count > 10_000 { state.noted = state.noted.filter { $0.value > earliest } }
            state.noted[key.id] = date
            state.pending[key.id] = date
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await self.clock.sleep(for: self.flushInterval)) != nil {
                await self.flush()
            }
        }
        await flush()
    }

    /// Writes the pending uses in one transaction; on failure they are dropped: the next use after the interval
    /// records the key again.
    func flush() async {
        let uses = state.withLock { state in
            defer { state.pending = [:] }
            return state.pending
        }
        do {
            try await store.recordAPIKeyUses(uses, unlessUsedWithin: Self.interval)
        } catch {
            logger.warning("could not record API key uses", metadata: ["keys": .stringConvertible(uses.count), "error": .string("\(error)")])
        }
    }
}
