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

    @Test func manyOperationsKeepTheListAndTheCostConsistent() {
        var cache = LRUCache<Int, Int>(capacity: 1000)
        var generator = SystemRandomNumberGenerator()
        var model: [Int: Int] = [:]
        for step in 0..<20_000 {
            let key = Int.random(in: 0..<200, using: &generator)
            switch step % 3 {
            case 0:
                let cost = Int.random(in: 0...120, using: &generator)
                cache.setValue(step, forKey: key, cost: cost)
                model[key] = step
            case 1:
                if let value = cache.value(forKey: key) { #expect(model[key] == value) }
            default:
                cache.removeValue(forKey: key)
                model[key] = nil
            }
            #expect(cache.totalCost <= 1000)
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
