import Crypto
import OrderPackage
import Testing

/// Audit M4: the asset cache is bounded in bytes, and a replaced asset can be dropped at once.
@Suite struct AssetCacheTests {
    /// `count` bytes that do not compress (so the cache holds about that much per content).
    static func incompressible(_ count: Int, seed: UInt8) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var block = Array(SHA256.hash(data: [seed]))
        while bytes.count < count {
            bytes += block
            block = Array(SHA256.hash(data: block))
        }
        return Array(bytes.prefix(count))
    }

    @Test func m4_replacingAnAssetHundredsOfTimesKeepsTheCacheWithinItsBytes() throws {
        let capacity = 8 << 20
        let cache = AssetCache(capacityBytes: capacity)
        // The audit's pattern: logo.png replaced with new 1 MB content, again and again (480 times there).
        for round in 0..<120 {
            let png = [0x89, 0x50, 0x4E, 0x47] + Self.incompressible(1 << 20, seed: UInt8(truncatingIfNeeded: round))
            _ = try AssetSet(files: ["logo.png": png], cache: cache)
            #expect(cache.cachedBytes <= capacity)
        }
        #expect(cache.count <= 8)
    }

    @Test func m4_aRemovedContentLeavesTheCache() throws {
        let cache = AssetCache()
        let png = [0x89, 0x50, 0x4E, 0x47] + Self.incompressible(4096, seed: 1)
        _ = try AssetSet(files: ["logo.png": png, "fr.lproj/logo.png": png], cache: cache)
        #expect(cache.count == 1, "one content, hashed and stored once")
        cache.remove(sha256Hex: SHA256.hash(data: png).map { String(format: "%02x", $0) }.joined())
        #expect(cache.count == 0 && cache.cachedBytes == 0)
    }
}
