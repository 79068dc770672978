import BoundedCache
import OrderPersistence
import Synchronization

/// Reads orders for device calls from memory, and never answers with a record older than the database's.
///
/// With SQLite this process is the only writer: each write here replaces the kept record, so a kept record is current.
/// With PostgreSQL other instances write too, and their commit is announced here only after it may already have been
/// pushed to a device, which may ask this instance first (the soak saw devices whose tag moved past a package they
/// never got). So a kept record is used only once a read of its version (one integer by primary key, no document)
/// finds it current (``VersionReads`` coalesces these reads); the package cache, keyed by version, still saves the build. Records are kept up to
/// `capacityBytes`, least recently used first out.
final class OrderRecordCache: Sendable {
    private let store: any OrderRecordStore
    /// With a shared database, how kept records are checked; `nil` when this process is the only writer.
    private let versions: VersionReads?
    private let entries: Mutex<LRUCache<OrderKey, OrderRecord>>
    private let metrics: CacheMetrics?

    /// - Parameter isExclusive: whether this process is the database's only writer (SQLite). Otherwise every kept
    ///   record's version is read before it is used.
    init(store: any OrderRecordStore, isExclusive: Bool, capacityBytes: Int = 64 << 20, metrics: CacheMetrics? = nil) {
        self.store = store
        self.versions = isExclusive ? nil : VersionReads(store: store)
        self.metrics = metrics
        self.entries = Mutex(LRUCache(capacity: capacityBytes))
    }

    /// Bytes of the records held now.
    var cachedBytes: Int { entries.withLock { $0.totalCost } }

    /// What a record costs in memory: its document and strings, plus a fixed overhead for the rest.
    static func cost(of record: OrderRecord) -> Int {
        record.document.count + record.authenticationToken.utf8.count + record.orderIdentifier.utf8.count
            + record.orderTypeIdentifier.utf8.count + record.merchantID.utf8.count + 128
    }

    func order(type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> OrderRecord? {
        let key = OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        if let cached = entries.withLock({ $0.value(forKey: key) }) {
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

    /// Keeps a record this process read or wrote, unless a newer version is kept already.
    func remember(_ record: OrderRecord) {
        entries.withLock { entries in
            if let existing = entries.value(forKey: record.key), existing.version > record.version { return }
            entries.setValue(record, forKey: record.key, cost: Self.cost(of: record))
        }
    }

    /// Drops the kept record of an order the store announced as changed (by any process), so memory holds no
    /// outdated copy.
    func forget(type orderTypeIdentifier: String, id orderIdentifier: String) {
        let removed = entries.withLock {
            $0.removeValue(forKey: OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier))
        }
        if removed != nil { metrics?.orderInvalidated() }
    }
}
