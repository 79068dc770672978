/// Reads zip archives defensively: every name, size, checksum and bound is checked before data is trusted.
public enum ZipReader {
    private static let endRecordSize = 22
    private static let centralHeaderSize = 46
    private static let localHeaderSize = 30
    private static let maxCommentLength = 0xFFFF

    /// All entries of `archive` (directory entries included), or the first rule it breaks.
    ///
    /// - Throws: The first ``ZipReadError`` that ``inspect(_:limits:)`` reports.
    public static func read(_ archive: [UInt8], limits: ZipReadLimits = .orderPackage) throws(ZipReadError) -> [ZipFile] {
        let inspection = inspect(archive, limits: limits)
        if let first = inspection.problems.first { throw first }
        return inspection.files
    }

    /// Reads as much as is safe and reports every problem: an entry that breaks a rule is left out and the
    /// others are still read. Structural problems and exceeded bounds end the read.
    public static func inspect(_ archive: [UInt8], limits: ZipReadLimits = .orderPackage) -> ZipInspection {
        var problems: [ZipReadError] = []
        var files: [ZipFile] = []
        do {
            let directory = try centralDirectory(of: archive, limits: limits)
            var names = Set<String>(minimumCapacity: directory.count)
            // Lowercased names, to the first entry that had each; String equality also equates Unicode normalizations.
            var foldedNames: [String: String] = [:]
            var cursor = directory.start
            var declaredTotal = 0
            for _ in 0..<directory.count {
                let header = try centralHeader(in: archive, at: &cursor, end: directory.end)
                let name = header.name
                if let violation = header.nameViolation {
                    problems.append(violation)
                    continue
                }
                guard names.insert(name).inserted else {
                    problems.append(.duplicateName(entry: name))
                    continue
                }
                if let other = foldedNames[name.lowercased()] {
                    problems.append(.caseInsensitiveDuplicate(entry: name, other: other))
                    continue
                }
                foldedNames[name.lowercased()] = name
                if header.flags & 0x41 != 0 { // bit 0: encrypted, bit 6: strong encryption
                    problems.append(.encrypted(entry: name))
                    continue
                }
                guard let method = ZipMethod(rawValue: header.method) else {
                    problems.append(.unsupportedMethod(entry: name, method: header.method))
                    continue
                }
                if header.uncompressedSize > limits.maxEntrySize {
                    problems.append(.entryTooLarge(entry: name, size: header.uncompressedSize, limit: limits.maxEntrySize))
                    continue
                }
                declaredTotal += header.uncompressedSize
                if declaredTotal > limits.maxTotalSize {
                    problems.append(.archiveTooLarge(size: declaredTotal, limit: limits.maxTotalSize))
                    return ZipInspection(files: files, problems: problems)
                }
                do {
                    let data = try entryData(of: header, method: method, in: archive, dataLimit: directory.start)
                    files.append(ZipFile(name: name, method: method, data: data))
                } catch {
                    problems.append(error)
                }
            }
        } catch {
            problems.append(error)
        }
        return ZipInspection(files: files, problems: problems)
    }

    // MARK: - Structure

    private struct Directory {
        var start: Int
        var end: Int
        var count: Int
    }

    private static func centralDirectory(of archive: [UInt8], limits: ZipReadLimits) throws(ZipReadError) -> Directory {
        guard archive.count >= endRecordSize else { throw .notAnArchive }
        // The end record sits at the very end, followed only by its comment; search backwards.
        let lowest = max(0, archive.count - endRecordSize - maxCommentLength)
        var position = archive.count - endRecordSize
        var found: Int?
        while position >= lowest {
            if archive.u32(at: position) == 0x0605_4b50,
                position + endRecordSize + Int(archive.u16(at: position + 20)) == archive.count
            {
                found = position
                break
            }
            position -= 1
        }
        guard let end = found else { throw .notAnArchive }
        let thisDisk = archive.u16(at: end + 4)
        let directoryDisk = archive.u16(at: end + 6)
        let entriesOnDisk = Int(archive.u16(at: end + 8))
        let entries = Int(archive.u16(at: end + 10))
        let size = Int(archive.u32(at: end + 12))
        let offset = Int(archive.u32(at: end + 16))
        if entries == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            throw .unsupportedFormat(reason: "zip64 end record")
        }
        guard thisDisk == 0, directoryDisk == 0, entriesOnDisk == entries else {
            throw .unsupportedFormat(reason: "multi-disk archive")
        }
        guard entries <= limits.maxEntryCount else {
            throw .tooManyEntries(count: entries, limit: limits.maxEntryCount)
        }
        guard offset + size <= end else {
            throw .malformed(reason: "the central directory (offset \(offset), \(size) bytes) overlaps the end record")
        }
        guard entries * centralHeaderSize <= size else {
            throw .malformed(reason: "\(entries) entries cannot fit in a \(size)-byte central directory")
        }
        return Directory(start: offset, end: offset + size, count: entries)
    }

    private struct CentralHeader {
        var name: String
        var nameViolation: ZipReadError?
        var flags: UInt16
        var method: UInt16
        var crc32: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        var localOffset: Int
        var rawName: ArraySlice<UInt8>
    }

    private static func centralHeader(
        in archive: [UInt8], at cursor: inout Int, end: Int
    ) throws(ZipReadError) -> CentralHeader {
        let start = cursor
        guard start + centralHeaderSize <= end, archive.u32(at: start) == 0x0201_4b50 else {
            throw .malformed(reason: "no central directory header at offset \(start)")
        }
        let nameLength = Int(archive.u16(at: start + 28))
        let extraLength = Int(archive.u16(at: start + 30))
        let commentLength = Int(archive.u16(at: start + 32))
        let next = start + centralHeaderSize + nameLength + extraLength + commentLength
        guard next <= end else {
            throw .malformed(reason: "the central directory header at offset \(start) runs past the directory")
        }
        cursor = next
        let rawName = archive[(start + centralHeaderSize)..<(start + centralHeaderSize + nameLength)]
        let decoded = String(validating: rawName, as: UTF8.self)
        let name = decoded ?? String(decoding: rawName, as: UTF8.self)
        let compressedSize = Int(archive.u32(at: start + 20))
        let uncompressedSize = Int(archive.u32(at: start + 24))
        let localOffset = Int(archive.u32(at: start + 42))
        if compressedSize == 0xFFFF_FFFF || uncompressedSize == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF {
            throw .unsupportedFormat(reason: "zip64 sizes for entry '\(name)'")
        }
        var violation: ZipReadError?
        if decoded == nil {
            violation = .invalidName(entry: name)
        } else if let rule = ZipPath.violation(in: name) {
            switch rule {
            case .empty, .invalidComponent: violation = .invalidName(entry: name)
            case .absolute: violation = .absolutePath(entry: name)
            case .parentComponent: violation = .parentDirectoryComponent(entry: name)
            case .backslash: violation = .backslashInName(entry: name)
            }
        }
        return CentralHeader(
            name: name, nameViolation: violation, flags: archive.u16(at: start + 8),
            method: archive.u16(at: start + 10), crc32: archive.u32(at: start + 16), compressedSize: compressedSize,
            uncompressedSize: uncompressedSize, localOffset: localOffset, rawName: rawName
        )
    }

    // MARK: - Entry data

    /// The checked, decompressed bytes of one entry; its data must end before `dataLimit` (the central directory).
    private static func entryData(
        of header: CentralHeader, method: ZipMethod, in archive: [UInt8], dataLimit: Int
    ) throws(ZipReadError) -> [UInt8] {
        let name = header.name
        let local = header.localOffset
        guard local + localHeaderSize <= dataLimit, archive.u32(at: local) == 0x0403_4b50 else {
            throw .malformed(reason: "entry '\(name)': no local header at offset \(local)")
        }
        let nameLength = Int(archive.u16(at: local + 26))
        let extraLength = Int(archive.u16(at: local + 28))
        let dataStart = local + localHeaderSize + nameLength + extraLength
        guard dataStart <= dataLimit else {
            throw .malformed(reason: "entry '\(name)': the local header runs into the central directory")
        }
        guard archive[(local + localHeaderSize)..<(local + localHeaderSize + nameLength)].elementsEqual(header.rawName)
        else { throw .headerMismatch(entry: name, field: "name") }
        guard archive.u16(at: local + 8) == header.method else {
            throw .headerMismatch(entry: name, field: "compression method")
        }
        let usesDataDescriptor = header.flags & 0x08 != 0
        if !usesDataDescriptor {
            // Without a data descriptor, the local header must repeat CRC and sizes.
            guard archive.u32(at: local + 14) == header.crc32 else { throw .headerMismatch(entry: name, field: "CRC-32") }
            guard Int(archive.u32(at: local + 18)) == header.compressedSize else {
                throw .headerMismatch(entry: name, field: "compressed size")
            }
            guard Int(archive.u32(at: local + 22)) == header.uncompressedSize else {
                throw .headerMismatch(entry: name, field: "uncompressed size")
            }
        }
        let available = dataLimit - dataStart
        guard header.compressedSize <= available else {
            throw .sizeMismatch(
                entry: name, field: "compressed", declared: header.compressedSize, actual: available
            )
        }
        let stored = archive[dataStart..<(dataStart + header.compressedSize)]
        let data: [UInt8]
        switch method {
        case .stored:
            guard header.compressedSize == header.uncompressedSize else {
                throw .sizeMismatch(
                    entry: name, field: "uncompressed", declared: header.uncompressedSize,
                    actual: header.compressedSize
                )
            }
            data = Array(stored)
        case .deflated:
            switch Zlib.inflate(stored, capacity: header.uncompressedSize) {
            case .exceedsCapacity:
                throw .sizeMismatch(
                    entry: name, field: "uncompressed", declared: header.uncompressedSize,
                    actual: header.uncompressedSize + 1
                )
            case .corrupt(let reason):
                throw .corruptData(entry: name, reason: reason)
            case .inflated(let bytes, let consumed):
                guard bytes.count == header.uncompressedSize else {
                    throw .sizeMismatch(
                        entry: name, field: "uncompressed", declared: header.uncompressedSize, actual: bytes.count
                    )
                }
                guard consumed == header.compressedSize else {
                    throw .sizeMismatch(
                        entry: name, field: "compressed", declared: header.compressedSize, actual: consumed
                    )
                }
                data = bytes
            }
        }
        let crc = Zlib.crc32(data)
        guard crc == header.crc32 else { throw .checksumMismatch(entry: name, declared: header.crc32, actual: crc) }
        return data
    }
}

extension Array where Element == UInt8 {
    /// Little-endian reads; callers check bounds first, reads past the end yield 0.
    @inline(__always)
    func u16(at offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= count else { return 0 }
        return UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    @inline(__always)
    func u32(at offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= count else { return 0 }
        return UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
            | UInt32(self[offset + 3]) << 24
    }
}
