/// One file ready to be written: name, method and the bytes as they go into the archive.
///
/// Building an entry costs a CRC and (for `.deflated`) a compression; both can be cached and the entry reused
/// across archives, so writing a package with static assets only copies bytes.
public struct ZipEntry: Sendable, Hashable {
    /// Path inside the archive, `/`-separated.
    public let name: String
    /// How `compressedBytes` are stored.
    public let method: ZipMethod
    /// CRC-32 of the uncompressed bytes.
    public let crc32: UInt32
    /// The entry's data as stored: the raw bytes for `.stored`, the raw deflate stream for `.deflated`.
    public let compressedBytes: [UInt8]
    /// The size of the entry's data after decompression, in bytes.
    public let uncompressedSize: Int

    /// Wraps data that was already compressed and checksummed, e.g. from a cache. Checks only the name and sizes.
    ///
    /// - Throws: ``ZipWriteError/invalidName(_:)`` for a name that is not a safe relative file path (directory
    ///   names ending in `/` included), ``ZipWriteError/tooLarge(_:)`` for sizes beyond 4 GiB or a `.stored` entry
    ///   whose two sizes differ.
    public init(
        name: String, method: ZipMethod, crc32: UInt32, compressedBytes: [UInt8], uncompressedSize: Int
    ) throws(ZipWriteError) {
        guard ZipPath.violation(in: name) == nil, !name.hasSuffix("/"), name.utf8.count <= Int(UInt16.max) else {
            throw .invalidName(name)
        }
        guard compressedBytes.count <= Int(UInt32.max), uncompressedSize <= Int(UInt32.max), uncompressedSize >= 0
        else { throw .tooLarge("entry '\(name)'") }
        if method == .stored && compressedBytes.count != uncompressedSize {
            throw .tooLarge("stored entry '\(name)' with mismatched sizes")
        }
        self.name = name
        self.method = method
        self.crc32 = crc32
        self.compressedBytes = compressedBytes
        self.uncompressedSize = uncompressedSize
    }

    /// Checksums `data` and, for `.deflated`, compresses it at `level` (zlib 1–9, default 6).
    ///
    /// - Throws: ``ZipWriteError`` for an unsafe name, a size beyond 4 GiB, or a zlib failure.
    public init(name: String, data: [UInt8], method: ZipMethod, level: Int32 = 6) throws(ZipWriteError) {
        let compressed = method == .deflated ? try Zlib.deflate(data, level: level) : data
        try self.init(
            name: name, method: method, crc32: Zlib.crc32(data), compressedBytes: compressed,
            uncompressedSize: data.count
        )
    }
}
