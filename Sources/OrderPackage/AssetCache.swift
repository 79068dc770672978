import BoundedCache
import OrderZip
import Synchronization

/// Compressed forms of asset contents, keyed by content digest, shared across asset sets and threads:
/// the same image in many orders is compressed and checksummed once. It holds at most `capacityBytes` of compressed
/// bytes, least recently used first out, so replaced assets leave memory as new ones arrive.
public final class AssetCache: Sendable {
    struct Compressed: Sendable {
        var method: ZipMethod
        var crc32: UInt32
        var bytes: [UInt8]
        var uncompressedSize: Int
    }

    private struct Key: Hashable {
        var sha256Hex: String
        var method: ZipMethod
    }

    private let storage: Mutex<LRUCache<Key, Compressed>>

    /// A cache of at most `capacityBytes` compressed bytes (64 MiB by default: a few hundred typical logos).
    public init(capacityBytes: Int = 64 << 20) {
        storage = Mutex(LRUCache(capacity: capacityBytes))
    }

    /// How many distinct contents are cached.
    public var count: Int { storage.withLock { $0.count } }

    /// Compressed bytes held now.
    public var cachedBytes: Int { storage.withLock { $0.totalCost } }

    /// Drops the entries of one content (an asset that was replaced or deleted).
    public func remove(sha256Hex: String) {
        _ = storage.withLock { cache in cache.removeAll { $0.sha256Hex == sha256Hex } }
    }

    /// The zip entry for `bytes` stored as `path`, compressing only on the first sight of this content.
    func entry(path: String, bytes: [UInt8], sha256Hex: String) throws(ZipWriteError) -> ZipEntry {
        let key = Key(sha256Hex: sha256Hex, method: PackageLayout.method(forPath: path))
        if let hit = storage.withLock({ $0.value(forKey: key) }) {
            return try ZipEntry(
                name: path, method: hit.method, crc32: hit.crc32, compressedBytes: hit.bytes,
                uncompressedSize: hit.uncompressedSize
            )
        }
        let entry = try ZipEntry(name: path, data: bytes, method: key.method)
        let compressed = Compressed(
            method: entry.method, crc32: entry.crc32, bytes: entry.compressedBytes,
            uncompressedSize: entry.uncompressedSize
        )
        _ = storage.withLock { $0.setValue(compressed, forKey: key, cost: compressed.bytes.count) }
        return entry
    }
}
