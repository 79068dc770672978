/// A map that keeps at most `capacity` units of cost (usually bytes) of values, dropping the least recently used
/// entries to make room.
///
/// Every operation is O(1): entries form a doubly linked list threaded through the dictionary by key. It is a value
/// type without locking; a cache shared between tasks keeps it inside a `Mutex`. Written here because neither the
/// standard library nor swift-collections has a cost-bounded LRU map.
public struct LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var cost: Int
        /// The next more recently used key, toward `newest`.
        var newer: Key?
        /// The next less recently used key, toward `oldest`.
        var older: Key?
    }

    /// The most cost the cache holds at once.
    public let capacity: Int
    /// The cost of the values held now; never above `capacity`.
    public private(set) var totalCost = 0
    private var entries: [Key: Entry] = [:]
    private var newest: Key?
    private var oldest: Key?

    /// A cache for at most `capacity` units of cost (a negative capacity holds nothing).
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// How many values are held.
    public var count: Int { entries.count }

    /// The value for `key`, which becomes the most recently used.
    public mutating func value(forKey key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        unlink(key, entry)
        linkAsNewest(key)
        return entry.value
    }

    /// Whether a value for `key` is held; unlike ``value(forKey:)``, its recency does not change.
    public func contains(_ key: Key) -> Bool {
        entries[key] != nil
    }

    /// Stores `value` for `key` as the most recently used, evicting the least recently used values until the total
    /// cost fits. A value costing more than the whole capacity is not stored (and any older value for the key goes).
    ///
    /// - Returns: The entries evicted to make room, least recently used first (not `key`'s own older value), so that a
    ///   caller keeping an index of the values can drop theirs.
    @discardableResult
    public mutating func setValue(_ value: Value, forKey key: Key, cost: Int) -> [(key: Key, value: Value)] {
        removeValue(forKey: key)
        let cost = max(0, cost)
        guard cost <= capacity else { return [] }
        var evicted: [(key: Key, value: Value)] = []
        while totalCost + cost > capacity, let victim = oldest, let value = removeValue(forKey: victim) {
            evicted.append((victim, value))
        }
        entries[key] = Entry(value: value, cost: cost)
        totalCost += cost
        linkAsNewest(key)
        return evicted
    }

    /// Removes and returns the value for `key`.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        unlink(key, entry)
        entries[key] = nil
        totalCost -= entry.cost
        return entry.value
    }

    /// Removes every value whose key matches `predicate` (O(n)), and returns them.
    @discardableResult
    public mutating func removeAll(where predicate: (Key) -> Bool) -> [(key: Key, value: Value)] {
        var removed: [(key: Key, value: Value)] = []
        for key in entries.keys where predicate(key) {
            if let value = removeValue(forKey: key) { removed.append((key, value)) }
        }
        return removed
    }

    private mutating func unlink(_ key: Key, _ entry: Entry) {
        if let newer = entry.newer { entries[newer]?.older = entry.older } else { newest = entry.older }
        if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
    }

    private mutating func linkAsNewest(_ key: Key) {
        entries[key]?.newer = nil
        entries[key]?.older = newest
        if let newest { entries[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }
}
