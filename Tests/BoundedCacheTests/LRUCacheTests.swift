import BoundedCache
import Testing

@Suite struct LRUCacheTests {
    @Test func theLeastRecentlyUsedValuesGoFirstAndTheCostNeverExceedsTheCapacity() {
        var cache = LRUCache<String, Int>(capacity: 10)
        cache.setValue(1, forKey: "a", cost: 4)
        cache.setValue(2, forKey: "b", cost: 4)
        #expect(cache.value(forKey: "a") == 1) // a is now newer than b
        cache.setValue(3, forKey: "c", cost: 4) // 12 > 10: b, the least recently used, goes
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") == 1 && cache.value(forKey: "c") == 3)
        #expect(cache.totalCost == 8 && cache.count == 2)
        // Replacing a value replaces its cost.
        cache.setValue(4, forKey: "a", cost: 1)
        #expect(cache.totalCost == 5 && cache.value(forKey: "a") == 4)
        // A value larger than the capacity is not kept, and its key's old value goes.
        cache.setValue(5, forKey: "c", cost: 11)
        #expect(cache.value(forKey: "c") == nil && cache.totalCost == 1)
        #expect(cache.removeValue(forKey: "a") == 4)
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    /// A caller indexing the values (such as a reverse index from their contents to keys) learns of every eviction.
    @Test func evictionsAndRemovalsReturnWhatTheyDropped() {
        var cache = LRUCache<String, Int>(capacity: 10)
        #expect(cache.setValue(1, forKey: "a", cost: 4).isEmpty)
        #expect(cache.setValue(2, forKey: "b", cost: 4).isEmpty)
        #expect(cache.setValue(3, forKey: "c", cost: 3).map(\.key) == ["a"])
        #expect(cache.contains("b") && !cache.contains("a"))
        // Replacing a value is no eviction; making room for a bigger one evicts the oldest first.
        #expect(cache.setValue(4, forKey: "c", cost: 3).isEmpty)
        let evicted = cache.setValue(5, forKey: "d", cost: 10)
        #expect(evicted.map(\.key) == ["b", "c"] && evicted.map(\.value) == [2, 4])
        // Too large to keep: nothing else is evicted.
        #expect(cache.setValue(6, forKey: "e", cost: 11).isEmpty && cache.contains("d"))
        let removed = cache.removeAll { $0 == "d" }
        #expect(removed.map(\.key) == ["d"] && removed.map(\.value) == [5] && cache.count == 0)
    }

    @Test func manyOperationsKeepTheListAndTheCostConsistent() {
        var cache = LRUCache<Int, Int>(capacity: 1000)
        var generator = SystemRandomNumberGenerator()
        var model: [Int: Int] = [:]
        // The keys held, least recently used first: evictions must come from its front.
        var recency: [Int] = []
        for step in 0..<20_000 {
            let key = Int.random(in: 0..<200, using: &generator)
            switch step % 3 {
            case 0:
                let cost = Int.random(in: 0...120, using: &generator)
                recency.removeAll { $0 == key }
                let evicted = cache.setValue(step, forKey: key, cost: cost)
                #expect(evicted.map(\.key) == Array(recency.prefix(evicted.count)), "the least recently used go first")
                recency.removeFirst(evicted.count)
                for victim in evicted {
                    #expect(model.removeValue(forKey: victim.key) == victim.value)
                }
                model[key] = cache.contains(key) ? step : nil
                if cache.contains(key) { recency.append(key) }
            case 1:
                #expect(cache.value(forKey: key) == model[key], "the evictions returned are exactly the values gone")
                if model[key] != nil {
                    recency.removeAll { $0 == key }
                    recency.append(key)
                }
            default:
                cache.removeValue(forKey: key)
                model[key] = nil
                recency.removeAll { $0 == key }
            }
            #expect(cache.totalCost <= 1000)
            #expect(cache.count == recency.count)
        }
        cache.removeAll { $0 % 2 == 0 }
        var remaining = 0
        for key in 0..<200 where cache.value(forKey: key) != nil {
            #expect(key % 2 == 1)
            remaining += 1
        }
        #expect(remaining == cache.count)
    }
}
