import BoundedCache
import OrderPersistence
import Synchronization

/// Reads orders for device calls, from memory when this process owns the database alone.
///
/// With SQLite every write goes through this process, so records kept after each create and update are never stale
/// and a device fetch needs no database read. With a shared database (several instances) the cache is off. Records are
/// kept up to `capacityBytes` (their documents and identifiers), least recently used first out.
final class OrderLookup: Sendable {
    private struct Key: Hashable {
        var orderTypeIdentifier: String
        var orderIdentifier: String
    }

    private let store: any OrderStore
    private let entries: Mutex<LRUCache<Key, OrderRecord>>?

    init(store: any OrderStore, cachesRecords: Bool, capacityBytes: Int = 64 << 20) {
        self.store = store
        self.entries = cachesRecords ? Mutex(LRUCache(capacity: capacityBytes)) : nil
    }

    /// Bytes of the records held now.
    var cachedBytes: Int { entries?.withLock { $0.totalCost } ?? 0 }

    /// What a record costs in memory: its document and strings, plus a fixed overhead for the rest.
    static func cost(of record: OrderRecord) -> Int {
        record.document.count + record.authenticationToken.utf8.count + record.orderIdentifier.utf8.count
            + record.orderTypeIdentifier.utf8.count + record.merchantID.utf8.count + 128
    }

    func order(type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> OrderRecord? {
        let key = Key(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        if let cached = entries?.withLock({ $0.value(forKey: key) }) { return cached }
        guard let record = try await store.order(type: orderTypeIdentifier, id: orderIdentifier) else { return nil }
        remember(record)
        return record
    }

    /// The orders whose authentication token is `token` (at most two), always from the database: only the payment
    /// providers' push registration asks, rarely, and the cache is keyed by order.
    func orders(authenticationToken token: String) async throws -> [OrderRecord] {
        try await store.orders(authenticationToken: token)
    }

    /// Keeps the newest version of a record this process just wrote or read.
    func remember(_ record: OrderRecord) {
        let key = Key(orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier)
        entries?.withLock { entries in
            if let existing = entries.value(forKey: key), existing.version > record.version { return }
            entries.setValue(record, forKey: key, cost: Self.cost(of: record))
        }
    }
}
