import BoundedCache
import OrderPersistence
import Synchronization

/// Reads orders for device calls from memory, and never answers with a record older than the database's.
///
/// With SQLite this process is the only writer: each write here replaces the kept record, so a kept record is current.
/// While a write of an order runs (``writing(type:id:_:)``), its record is neither kept nor answered from memory:
/// the commit's push can reach a device before the writer has kept the new record, and a device answered the old one
/// then held it under the new change tag (the 2026-11-29 soak at saturation).
/// With PostgreSQL other instances write too, and their commit is announced here only after it may already have been
/// pushed to a device, which may ask this instance first (the soak saw devices whose tag moved past a package they
/// never got). So a kept record is used only once a read of its version (one integer by primary key, no document)
/// finds it current (``VersionReads`` coalesces these reads); the package cache, keyed by version, still saves the build. Records are kept up to
/// `capacityBytes`, least recently used first out.
final class OrderRecordCache: Sendable {
    private let store: any OrderRecordStore
    /// With a shared database, how kept records are checked; `nil` when this process is the only writer.
    private let versions: VersionReads?
    private let state: Mutex<State>
    private let metrics: CacheMetrics?

    /// - Parameter isExclusive: whether this process is the database's only writer (SQLite). Otherwise every kept
    ///   record's version is read before it is used.
    init(store: any OrderRecordStore, isExclusive: Bool, capacityBytes: Int = 64 << 20, metrics: CacheMetrics? = nil) {
        self.store = store
        self.versions = isExclusive ? nil : VersionReads(store: store)
        self.metrics = metrics
        self.state = Mutex(State(entries: LRUCache(capacity: capacityBytes)))
    }

    private struct State {
        var entries: LRUCache<OrderKey, OrderRecord>
        /// Orders being written now, with how many writes each.
        var writes: [OrderKey: Int] = [:]
    }

    /// Bytes of the records held now.
    var cachedBytes: Int { state.withLock { $0.entries.totalCost } }

    /// What a record costs in memory: its document and strings, plus a fixed overhead for the rest.
    static func cost(of record: OrderRecord) -> Int {
        record.document.count + record.authenticationToken.utf8.count + record.orderIdentifier.utf8.count
            + record.orderTypeIdentifier.utf8.count + record.merchantID.utf8.count + 128
    }

    func order(type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> OrderRecord? {
        let key = OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        let (cached, isBeingWritten) = state.withLock { ($0.entries.value(forKey: key), $0.writes[key] != nil) }
        if isBeingWritten {
            metrics?.orderMiss()
            return try await store.order(type: orderTypeIdentifier, id: orderIdentifier)
        }
        if let cached {
            guard let versions else {
                metrics?.orderHit()
                return cached
            }
            let version = try await versions.version(of: key)
            if version == cached.version {
                metrics?.orderHit()
                return cached
            }
            if version == nil {
                forget(type: orderTypeIdentifier, id: orderIdentifier)
                return nil
            }
        }
        metrics?.orderMiss()
        guard let record = try await store.order(type: orderTypeIdentifier, id: orderIdentifier) else { return nil }
        remember(record)
        return record
    }

    /// The orders whose authentication token is `token` (at most two), always from the database: only the payment
    /// providers' push registration asks, rarely, and the cache is keyed by order.
    func orders(authenticationToken token: String) async throws -> [OrderRecord] {
        try await store.orders(authenticationToken: token)
    }

    /// Runs `write`, a store write of one order, with the order's record out of memory until it returns; then keeps
    /// the record it wrote.
    func writing(type orderTypeIdentifier: String, id orderIdentifier: String, _ write: () async throws -> OrderRecord) async throws -> OrderRecord {
        let key = OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        state.withLock { state in
            state.writes[key, default: 0] += 1
            _ = state.entries.removeValue(forKey: key)
        }
        let record: OrderRecord
        do {
            record = try await write()
        } catch {
            state.withLock { Self.endWrite(key, in: &$0) }
            throw error
        }
        state.withLock { state in
            Self.endWrite(key, in: &state)
            Self.keep(record, in: &state)
        }
        return record
    }

    private static func endWrite(_ key: OrderKey, in state: inout State) {
        let remaining = (state.writes[key] ?? 1) - 1
        state.writes[key] = remaining > 0 ? remaining : nil
    }

    /// Keeps a record this process read or created, unless a newer version is kept already or the order is being
    /// written.
    func remember(_ record: OrderRecord) {
        state.withLock { state in
            guard state.writes[record.key] == nil else { return }
            Self.keep(record, in: &state)
        }
    }

    private static func keep(_ record: OrderRecord, in state: inout State) {
        if let existing = state.entries.value(forKey: record.key), existing.version > record.version { return }
        _ = state.entries.setValue(record, forKey: record.key, cost: Self.cost(of: record))
    }

    /// Drops the kept record of an order the store announced as changed (by any process), so memory holds no
    /// outdated copy.
    func forget(type orderTypeIdentifier: String, id orderIdentifier: String) {
        let removed = state.withLock {
            $0.entries.removeValue(forKey: OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier))
        }
        if removed != nil { metrics?.orderInvalidated() }
    }
}
