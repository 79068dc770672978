/// Bounds that stop a hostile archive from exhausting memory (zip bombs) or time.
public struct ZipReadLimits: Sendable, Hashable {
    /// Most entries the central directory may list.
    public var maxEntryCount: Int
    /// Largest uncompressed size of one entry, in bytes.
    public var maxEntrySize: Int
    /// Largest sum of uncompressed sizes, in bytes.
    public var maxTotalSize: Int

    /// Limits in entries and bytes.
    public init(maxEntryCount: Int, maxEntrySize: Int, maxTotalSize: Int) {
        self.maxEntryCount = maxEntryCount
        self.maxEntrySize = maxEntrySize
        self.maxTotalSize = maxTotalSize
    }

    /// Generous for order packages (Apple asks for < 5 MB): 1,000 entries, 16 MiB each, 32 MiB in all.
    public static let orderPackage = ZipReadLimits(
        maxEntryCount: 1000, maxEntrySize: 16 << 20, maxTotalSize: 32 << 20
    )
}
