/// Writes a zip archive of files only (no directory entries) into one preallocated buffer.
public enum ZipWriter {
    private static let localHeaderSize = 30
    private static let centralHeaderSize = 46
    private static let endRecordSize = 22
    /// Version made by: Unix (3), spec 2.0, so `externalAttributes` carry a Unix mode.
    private static let versionMadeBy: UInt16 = 3 << 8 | 20
    /// Regular file, rw-r--r--.
    private static let externalAttributes: UInt32 = 0o100644 << 16
    /// General purpose flag bit 11: the name is UTF-8.
    private static let utf8Flag: UInt16 = 1 << 11

    /// The archive bytes for `entries`, in order, every entry stamped with `timestamp`.
    public static func archive(_ entries: [ZipEntry], timestamp: ZipTimestamp = .fixed) throws(ZipWriteError) -> [UInt8] {
        guard entries.count <= Int(UInt16.max) else { throw .tooLarge("\(entries.count) entries") }
        var names = Set<String>(minimumCapacity: entries.count)
        var total = endRecordSize
        for entry in entries {
            guard names.insert(entry.name).inserted else { throw .duplicateName(entry.name) }
            let nameLength = entry.name.utf8.count
            total += localHeaderSize + centralHeaderSize + 2 * nameLength + entry.compressedBytes.count
        }
        guard total <= Int(UInt32.max) else { throw .tooLarge("the archive") }

        var out = [UInt8]()
        out.reserveCapacity(total)
        var offsets = [UInt32]()
        offsets.reserveCapacity(entries.count)
        for entry in entries {
            offsets.append(UInt32(out.count))
            out.appendLE(UInt32(0x0403_4b50))
            out.appendLE(versionNeeded(entry.method))
            out.appendLE(flags(entry))
            out.appendLE(entry.method.rawValue)
            out.appendLE(timestamp.dosTime)
            out.appendLE(timestamp.dosDate)
            out.appendLE(entry.crc32)
            out.appendLE(UInt32(entry.compressedBytes.count))
            out.appendLE(UInt32(entry.uncompressedSize))
            out.appendLE(UInt16(entry.name.utf8.count))
            out.appendLE(UInt16(0))
            out.append(contentsOf: entry.name.utf8)
            out.append(contentsOf: entry.compressedBytes)
        }
        let centralStart = out.count
        // The central directory repeats each local header's fields in its own layout (APPNOTE 4.3.7 and 4.3.12): written
        // out field by field, so each record reads as the specification lists it.
        for (entry, offset) in zip(entries, offsets) {
            out.appendLE(UInt32(0x0201_4b50))
            out.appendLE(versionMadeBy)
            out.appendLE(versionNeeded(entry.method))
            out.appendLE(flags(entry))
            out.appendLE(entry.method.rawValue)
            out.appendLE(timestamp.dosTime)
            out.appendLE(timestamp.dosDate)
            out.appendLE(entry.crc32)
            out.appendLE(UInt32(entry.compressedBytes.count))
            out.appendLE(UInt32(entry.uncompressedSize))
            out.appendLE(UInt16(entry.name.utf8.count))
            out.appendLE(UInt16(0)) // extra field length
            out.appendLE(UInt16(0)) // comment length
            out.appendLE(UInt16(0)) // disk number start
            out.appendLE(UInt16(0)) // internal attributes
            out.appendLE(externalAttributes)
            out.appendLE(offset)
            out.append(contentsOf: entry.name.utf8)
        }
        let centralSize = out.count - centralStart
        out.appendLE(UInt32(0x0605_4b50))
        out.appendLE(UInt16(0)) // this disk
        out.appendLE(UInt16(0)) // disk with the central directory
        out.appendLE(UInt16(entries.count))
        out.appendLE(UInt16(entries.count))
        out.appendLE(UInt32(centralSize))
        out.appendLE(UInt32(centralStart))
        out.appendLE(UInt16(0)) // comment length
        return out
    }

    private static func versionNeeded(_ method: ZipMethod) -> UInt16 {
        method == .deflated ? 20 : 10
    }

    private static func flags(_ entry: ZipEntry) -> UInt16 {
        entry.name.utf8.contains { $0 >= 0x80 } ? utf8Flag : 0
    }
}

extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendLE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    @inline(__always)
    mutating func appendLE(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 24))
    }
}
