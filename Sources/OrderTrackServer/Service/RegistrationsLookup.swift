import BoundedCache
import OrderPersistence
import Synchronization

/// Answers a device's registrations list (its orders of a type changed after a tag) from memory on a shared database,
/// and never with a list older than the database's.
///
/// With PostgreSQL each list would otherwise be a database round trip. The device's full list for the order type (every
/// order it is registered for, with its change sequence) is kept while the store follows changes
/// (``StoreChangeFeed/followChanges(_:)``), and any tag is answered by filtering it. A list is dropped when a registration of
/// its device and type is announced, when an order in it is announced (its change sequence moved) and when its order
/// type is; everything is dropped (and nothing kept) while following is interrupted. A read that overlapped any
/// announcement is not kept, since it may have read the rows before that change committed. Lists are kept up to
/// `capacityBytes`, least recently used first out.
///
/// With SQLite nothing is kept: the query is an index range in this process (about 50 µs), so a copy would save little
/// and cost memory.
final class RegistrationsLookup: Sendable {
    private struct Key: Hashable {
        var deviceLibraryIdentifier: String
        var orderTypeIdentifier: String
    }

    private struct OrderKey: Hashable {
        var orderTypeIdentifier: String
        var orderIdentifier: String
    }

    private struct State {
        var lists: LRUCache<Key, [RegisteredOrder]>
        /// The kept lists each order is in, to drop them when it changes; in step with `lists`, evictions included.
        var listsByOrder: [OrderKey: Set<Key>] = [:]
        /// Whether kept lists can be trusted: while changes are followed.
        var isFollowing = false
        /// Bumped by every announcement and interruption: a read begun before a bump may predate that change.
        var epoch: UInt64 = 0

        mutating func keep(_ orders: [RegisteredOrder], for key: Key, cost: Int) {
            drop(key)
            for (evicted, orders) in lists.setValue(orders, forKey: key, cost: cost) { unindex(evicted, orders) }
            guard lists.contains(key) else { return }
            for order in orders {
                listsByOrder[OrderKey(orderTypeIdentifier: key.orderTypeIdentifier, orderIdentifier: order.orderIdentifier), default: []]
                    .insert(key)
            }
        }

        /// Drops a kept list; whether there was one.
        @discardableResult
        mutating func drop(_ key: Key) -> Bool {
            guard let orders = lists.removeValue(forKey: key) else { return false }
            unindex(key, orders)
            return true
        }

        /// Drops the kept lists whose key matches; how many there were.
        @discardableResult
        mutating func drop(where predicate: (Key) -> Bool) -> Int {
            let dropped = lists.removeAll(where: predicate)
            for (key, orders) in dropped { unindex(key, orders) }
            return dropped.count
        }

        private mutating func unindex(_ key: Key, _ orders: [RegisteredOrder]) {
            for order in orders {
                let orderKey = OrderKey(orderTypeIdentifier: key.orderTypeIdentifier, orderIdentifier: order.orderIdentifier)
                listsByOrder[orderKey]?.remove(key)
                if listsByOrder[orderKey]?.isEmpty == true { listsByOrder[orderKey] = nil }
            }
        }
    }

    private let store: any RegistrationStore
    private let isExclusive: Bool
    private let state: Mutex<State>
    private let metrics: CacheMetrics?

    // The same members as OrderRecordCache's, for the opposite policy: orders are kept when this process is the only
    // writer, registration lists only when it is not (with SQLite the query costs about as little as a copy would).
    /// - Parameter isExclusive: whether this process is the database's only writer (SQLite): then nothing is kept.
    ///   Otherwise lists are kept once ``handle(_:)`` reports ``StoreChangeEvent/following``.
    init(store: any RegistrationStore, isExclusive: Bool, capacityBytes: Int = 32 << 20, metrics: CacheMetrics? = nil) {
        self.store = store
        self.isExclusive = isExclusive
        self.metrics = metrics
        self.state = Mutex(State(lists: LRUCache(capacity: capacityBytes)))
    }

    /// Bytes of the lists held now.
    var cachedBytes: Int { state.withLock { $0.lists.totalCost } }

    /// What a list costs in memory: its strings and, per order, its element and its entry in the index by order.
    private static func cost(of orders: [RegisteredOrder], for key: Key) -> Int {
        key.deviceLibraryIdentifier.utf8.count + key.orderTypeIdentifier.utf8.count + 128
            + orders.reduce(0) { $0 + 2 * $1.orderIdentifier.utf8.count + key.orderTypeIdentifier.utf8.count + 160 }
    }

    /// The device's registered orders of a type changed after `tag` (all of them without one), in the order of their
    /// changes; `nil` when none did. The same answer as ``RegistrationStore/registeredOrderIdentifiers(deviceLibraryIdentifier:orderTypeIdentifier:changedAfter:)``.
    func changedOrders(device: String, orderTypeIdentifier: String, after tag: Int64?) async throws -> ChangedOrders? {
        // SQLite: this process is the only writer, and its read is an in-process index range of about 50 µs.
        guard !isExclusive else {
            return try await store.registeredOrderIdentifiers(
                deviceLibraryIdentifier: device, orderTypeIdentifier: orderTypeIdentifier, changedAfter: tag)
        }
        let key = Key(deviceLibraryIdentifier: device, orderTypeIdentifier: orderTypeIdentifier)
        let (cached, epoch) = state.withLock { state in
            (state.isFollowing ? state.lists.value(forKey: key) : nil, state.epoch)
        }
        if let cached {
            metrics?.registrationsHit()
            return ChangedOrders(cached, changedAfter: tag)
        }
        metrics?.registrationsMiss()
        let orders = try await store.registeredOrders(deviceLibraryIdentifier: device, orderTypeIdentifier: orderTypeIdentifier)
        let cost = Self.cost(of: orders, for: key)
        state.withLock { state in
            guard state.isFollowing, state.epoch == epoch else { return }
            state.keep(orders, for: key, cost: cost)
        }
        return ChangedOrders(orders, changedAfter: tag)
    }

    /// Applies a change announced by the store (any process's) or by this process (``DeviceService``, ``OrderService``).
    func handle(_ event: StoreChangeEvent) {
        let dropped = state.withLock { state in
            state.epoch &+= 1
            switch event {
            case .following:
                state.isFollowing = true
                state.drop(where: { _ in true })
                return 0
            case .interrupted:
                state.isFollowing = false
                state.drop(where: { _ in true })
                return 0
            case .registrations(let type, let device):
                return state.drop(Key(deviceLibraryIdentifier: device, orderTypeIdentifier: type)) ? 1 : 0
            case .order(let type, let id):
                let keys = state.listsByOrder[OrderKey(orderTypeIdentifier: type, orderIdentifier: id)] ?? []
                return keys.count(where: { state.drop($0) })
            case .orderType(let type):
                return state.drop(where: { $0.orderTypeIdentifier == type })
            }
        }
        if dropped > 0 { metrics?.registrationsInvalidated(dropped) }
    }
}
