/// A map that keeps at most `capacity` units of cost (usually bytes) of values, dropping the least recently used
/// entries to make room.
///
/// Every operation is O(1): entries sit in an array, linked newest to oldest by their positions, and a dictionary finds
/// a key's position, so a lookup hashes its key once (a list threaded through the dictionary by key hashed it up to six
/// times, 5 % of a device fetch's CPU). The methods are inlinable so that each cache is specialized for its own key and
/// value types. It is a value type without locking; a cache shared between tasks keeps it inside a `Mutex`. Written
/// here because neither the standard library nor swift-collections has a cost-bounded LRU map.
public struct LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    struct Slot: Sendable {
        /// Nil while the slot is free.
        @usableFromInline var entry: (key: Key, value: Value)?
        @usableFromInline var cost: Int
        /// The next more recently used slot, toward `newest`; -1 for none.
        @usableFromInline var newer: Int
        /// The next less recently used slot, toward `oldest`; -1 for none.
        @usableFromInline var older: Int

        @inlinable
        init(entry: (key: Key, value: Value), cost: Int, older: Int) {
            self.entry = entry
            self.cost = cost
            self.newer = -1
            self.older = older
        }
    }

    /// The most cost the cache holds at once.
    public let capacity: Int
    /// The cost of the values held now; never above `capacity`.
    @inlinable
    public var totalCost: Int { heldCost }
    @usableFromInline var heldCost = 0
    @usableFromInline var positions: [Key: Int] = [:]
    @usableFromInline var slots: [Slot] = []
    /// Slots emptied by removals, reused before the array grows.
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var newest = -1
    @usableFromInline var oldest = -1

    /// A cache for at most `capacity` units of cost (a negative capacity holds nothing).
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// How many values are held.
    @inlinable
    public var count: Int { positions.count }

    /// The value for `key`, which becomes the most recently used.
    @inlinable
    public mutating func value(forKey key: Key) -> Value? {
        guard let position = positions[key] else { return nil }
        if position != newest {
            unlink(position)
            linkAsNewest(position)
        }
        return slots[position].entry?.value
    }

    /// Whether a value for `key` is held; unlike ``value(forKey:)``, its recency does not change.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        positions[key] != nil
    }

    /// Stores `value` for `key` as the most recently used, evicting the least recently used values until the total
    /// cost fits. A value costing more than the whole capacity is not stored (and any older value for the key goes).
    ///
    /// - Returns: The entries evicted to make room, least recently used first (not `key`'s own older value), so that a
    ///   caller keeping an index of the values can drop theirs.
    @inlinable
    @discardableResult
    public mutating func setValue(_ value: Value, forKey key: Key, cost: Int) -> [(key: Key, value: Value)] {
        removeValue(forKey: key)
        let cost = max(0, cost)
        guard cost <= capacity else { return [] }
        var evicted: [(key: Key, value: Value)] = []
        while totalCost + cost > capacity, oldest >= 0, let entry = slots[oldest].entry, let value = removeValue(forKey: entry.key) {
            evicted.append((entry.key, value))
        }
        let slot = Slot(entry: (key, value), cost: cost, older: -1)
        let position: Int
        if let free = freeSlots.popLast() {
            slots[free] = slot
            position = free
        } else {
            slots.append(slot)
            position = slots.count - 1
        }
        positions[key] = position
        heldCost += cost
        linkAsNewest(position)
        return evicted
    }

    /// Removes and returns the value for `key`.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let position = positions.removeValue(forKey: key) else { return nil }
        unlink(position)
        let value = slots[position].entry?.value
        heldCost -= slots[position].cost
        slots[position].entry = nil
        slots[position].cost = 0
        freeSlots.append(position)
        return value
    }

    /// Removes every value whose key matches `predicate` (O(n)), and returns them.
    @inlinable
    @discardableResult
    public mutating func removeAll(where predicate: (Key) -> Bool) -> [(key: Key, value: Value)] {
        var removed: [(key: Key, value: Value)] = []
        for key in positions.keys where predicate(key) {
            if let value = removeValue(forKey: key) { removed.append((key, value)) }
        }
        return removed
    }

    @inlinable
    mutating func unlink(_ position: Int) {
        let newer = slots[position].newer
        let older = slots[position].older
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
    }

    @inlinable
    mutating func linkAsNewest(_ position: Int) {
        slots[position].newer = -1
        slots[position].older = newest
        if newest >= 0 { slots[newest].newer = position }
        newest = position
        if oldest < 0 { oldest = position }
    }
}
