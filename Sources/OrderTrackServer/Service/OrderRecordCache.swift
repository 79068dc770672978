import BoundedCache
import OrderPersistence
import Synchronization

/// Reads orders for device calls from memory, and never answers with a record older than the database's.
///
/// With SQLite this process is the only writer: the records it keeps after each create, update and read are never
/// stale. With PostgreSQL other instances write too, so a record is kept only while the store follows changes
/// (``StoreChangeFeed/followChanges(_:)``), is dropped when one is announced, and everything is dropped (and nothing kept)
/// while following is interrupted. A read that overlapped an announcement is not kept, since it may have read the row
/// before that change committed. Records are kept up to `capacityBytes`, least recently used first out.
final class OrderRecordCache: Sendable {
    private struct Key: Hashable {
        var orderTypeIdentifier: String
        var orderIdentifier: String
    }

    private struct State {
        var entries: LRUCache<Key, OrderRecord>
        /// Whether kept records can be trusted: always with SQLite; with PostgreSQL while changes are followed.
        var isFollowing: Bool
        /// Bumped by every announcement and interruption: a read begun before a bump may predate that change.
        var epoch: UInt64 = 0
    }

    private let store: any OrderRecordStore
    private let isExclusive: Bool
    private let state: Mutex<State>
    private let metrics: CacheMetrics?

    /// - Parameter isExclusive: whether this process is the database's only writer (SQLite). Otherwise nothing is kept
    ///   until ``handle(_:)`` reports ``StoreChangeEvent/following``.
    init(store: any OrderRecordStore, isExclusive: Bool, capacityBytes: Int = 64 << 20, metrics: CacheMetrics? = nil) {
        self.store = store
        self.isExclusive = isExclusive
        self.metrics = metrics
        self.state = Mutex(State(entries: LRUCache(capacity: capacityBytes), isFollowing: isExclusive))
    }

    /// Bytes of the records held now.
    var cachedBytes: Int { state.withLock { $0.entries.totalCost } }

    /// What a record costs in memory: its document and strings, plus a fixed overhead for the rest.
    static func cost(of record: OrderRecord) -> Int {
        record.document.count + record.authenticationToken.utf8.count + record.orderIdentifier.utf8.count
            + record.orderTypeIdentifier.utf8.count + record.merchantID.utf8.count + 128
    }

    func order(type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> OrderRecord? {
        let key = Key(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        let (cached, epoch) = state.withLock { state in
            (state.isFollowing ? state.entries.value(forKey: key) : nil, state.epoch)
        }
        if let cached {
            metrics?.orderHit()
            return cached
        }
        metrics?.orderMiss()
        guard let record = try await store.order(type: orderTypeIdentifier, id: orderIdentifier) else { return nil }
        keep(record, readAt: epoch)
        return record
    }

    /// The orders whose authentication token is `token` (at most two), always from the database: only the payment
    /// providers' push registration asks, rarely, and the cache is keyed by order.
    func orders(authenticationToken token: String) async throws -> [OrderRecord] {
        try await store.orders(authenticationToken: token)
    }

    /// Keeps the newest version of a record this process just wrote. With a shared database it is not kept (another
    /// instance may have changed the order since, and the next read keeps it safely) but announced here at once, as
    /// its commit's announcement may come later: any copy is dropped and a read under way is not kept, so no read
    /// here returns the version before this write.
    func remember(_ record: OrderRecord) {
        guard isExclusive else {
            handle(.order(orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier))
            return
        }
        keep(record, readAt: state.withLock { $0.epoch })
    }

    /// Applies a change announced by the store (any process's) or by this process.
    func handle(_ event: StoreChangeEvent) {
        // Registrations are not part of an order record: reads under way need not start over.
        if case .registrations = event { return }
        state.withLock { state in
            state.epoch &+= 1
            switch event {
            case .following:
                state.entries.removeAll(where: { _ in true })
                state.isFollowing = true
            case .interrupted:
                state.entries.removeAll(where: { _ in true })
                state.isFollowing = isExclusive
            case .order(let type, let id):
                _ = state.entries.removeValue(forKey: Key(orderTypeIdentifier: type, orderIdentifier: id))
            case .orderType, .registrations:
                break
            }
        }
        if case .order = event { metrics?.orderInvalidated() }
    }

    private func keep(_ record: OrderRecord, readAt epoch: UInt64) {
        let key = Key(orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier)
        state.withLock { state in
            guard state.isFollowing, state.epoch == epoch else { return }
            if let existing = state.entries.value(forKey: key), existing.version > record.version { return }
            state.entries.setValue(record, forKey: key, cost: Self.cost(of: record))
        }
    }
}
