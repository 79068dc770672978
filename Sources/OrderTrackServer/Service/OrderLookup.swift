import OrderStore
import Synchronization

/// Reads orders for device calls, from memory when this process owns the database alone.
///
/// With SQLite every write goes through this process, so records kept after each create and update are never stale
/// and a device fetch needs no database read. With a shared database (several instances) the cache is off.
final class OrderLookup: Sendable {
    private struct Key: Hashable {
        var orderTypeIdentifier: String
        var orderIdentifier: String
    }

    private let store: any OrderStore
    private let capacity: Int
    private let entries: Mutex<[Key: OrderRecord]>?

    init(store: any OrderStore, cachesRecords: Bool, capacity: Int = 100_000) {
        self.store = store
        self.capacity = capacity
        self.entries = cachesRecords ? Mutex([:]) : nil
    }

    func order(type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> OrderRecord? {
        let key = Key(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        if let cached = entries?.withLock({ $0[key] }) { return cached }
        guard let record = try await store.order(type: orderTypeIdentifier, id: orderIdentifier) else { return nil }
        remember(record)
        return record
    }

    /// Keeps the newest version of a record this process just wrote or read.
    func remember(_ record: OrderRecord) {
        let key = Key(orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier)
        entries?.withLock { entries in
            if let existing = entries[key], existing.version > record.version { return }
            if entries[key] == nil, entries.count >= capacity, let victim = entries.keys.first { entries[victim] = nil }
            entries[key] = record
        }
    }
}
