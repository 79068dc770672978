import Foundation
import TestSupport
import Testing

@testable import OrderZip

@Suite("Zip reader safety rules")
struct ZipSafetyTests {
    /// Builds an archive with Python's zipfile; `body` writes to `z`, the archive goes to stdout.
    static func pythonArchive(_ body: String) throws -> [UInt8] {
        let script = """
            import sys, io, zipfile, warnings
            warnings.simplefilter("ignore")
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
            \(body.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            sys.stdout.buffer.write(buf.getvalue())
            """
        return try ExternalTools.python(script)
    }

    static func single(_ name: String) throws -> [UInt8] {
        try pythonArchive("z.writestr(zipfile.ZipInfo(\"\(name)\"), b\"payload\")")
    }

    @Test func rejectsAbsolutePaths() throws {
        #expect(throws: ZipReadError.absolutePath(entry: "/etc/passwd")) { try ZipReader.read(Self.single("/etc/passwd")) }
        #expect(throws: ZipReadError.absolutePath(entry: "C:/x")) { try ZipReader.read(Self.single("C:/x")) }
    }

    @Test func rejectsParentComponents() throws {
        #expect(throws: ZipReadError.parentDirectoryComponent(entry: "../evil")) {
            try ZipReader.read(Self.single("../evil"))
        }
        #expect(throws: ZipReadError.parentDirectoryComponent(entry: "a/../../b")) {
            try ZipReader.read(Self.single("a/../../b"))
        }
    }

    @Test func rejectsBackslashes() throws {
        #expect(throws: ZipReadError.backslashInName(entry: "fr.lproj\\order.strings")) {
            try ZipReader.read(Self.single("fr.lproj\\\\order.strings"))
        }
    }

    @Test func rejectsDuplicateNames() throws {
        let archive = try Self.pythonArchive("z.writestr(\"a.txt\", b\"1\")\nz.writestr(\"a.txt\", b\"2\")")
        #expect(throws: ZipReadError.duplicateName(entry: "a.txt")) { try ZipReader.read(archive) }
        // The lenient read keeps the first and still reports the duplicate.
        let inspection = ZipReader.inspect(archive)
        #expect(inspection.files.map(\.data) == [[UInt8(ascii: "1")]])
        #expect(inspection.problems == [.duplicateName(entry: "a.txt")])
    }

    @Test func l16_namesThatDifferOnlyByCaseAreFlagged() throws {
        let archive = try Self.pythonArchive("z.writestr(\"en.lproj/Logo.png\", b\"1\")\nz.writestr(\"en.lproj/logo.PNG\", b\"2\")")
        #expect(throws: ZipReadError.caseInsensitiveDuplicate(entry: "en.lproj/logo.PNG", other: "en.lproj/Logo.png")) {
            try ZipReader.read(archive)
        }
        let inspection = ZipReader.inspect(archive)
        #expect(inspection.files.map(\.name) == ["en.lproj/Logo.png"])
        #expect(inspection.problems == [.caseInsensitiveDuplicate(entry: "en.lproj/logo.PNG", other: "en.lproj/Logo.png")])
    }

    @Test func rejectsUnsupportedMethods() throws {
        let archive = try Self.pythonArchive(
            "z.writestr(zipfile.ZipInfo(\"b.txt\"), b\"x\" * 100, compress_type=zipfile.ZIP_BZIP2)"
        )
        #expect(throws: ZipReadError.unsupportedMethod(entry: "b.txt", method: 12)) { try ZipReader.read(archive) }
    }

    @Test func rejectsEncryptedEntries() throws {
        var archive = try ZipWriter.archive([ZipEntry(name: "secret.txt", data: [1, 2, 3], method: .stored)])
        archive[6] |= 1 // local header flags
        archive[Self.centralHeaderOffset(archive) + 8] |= 1
        #expect(throws: ZipReadError.encrypted(entry: "secret.txt")) { try ZipReader.read(archive) }
    }

    @Test func rejectsDeclaredSizesThatDisagreeWithData() throws {
        let data = Array(repeating: UInt8(ascii: "a"), count: 1000)
        // Deflated entry claiming 999 bytes.
        var archive = try ZipWriter.archive([ZipEntry(name: "a.txt", data: data, method: .deflated)])
        Self.patchUInt32(&archive, at: 22, 999)
        Self.patchUInt32(&archive, at: Self.centralHeaderOffset(archive) + 24, 999)
        #expect(throws: ZipReadError.sizeMismatch(entry: "a.txt", field: "uncompressed", declared: 999, actual: 1000)) {
            try ZipReader.read(archive)
        }
        // Stored entry whose compressed size runs into the central directory.
        var stored = try ZipWriter.archive([ZipEntry(name: "b.bin", data: [1, 2, 3, 4], method: .stored)])
        Self.patchUInt32(&stored, at: 18, 400)
        Self.patchUInt32(&stored, at: Self.centralHeaderOffset(stored) + 20, 400)
        #expect(throws: ZipReadError.sizeMismatch(entry: "b.bin", field: "compressed", declared: 400, actual: 4)) {
            try ZipReader.read(stored)
        }
    }

    @Test func rejectsLocalHeaderThatDisagreesWithCentralDirectory() throws {
        var archive = try ZipWriter.archive([ZipEntry(name: "a.txt", data: [1, 2, 3], method: .stored)])
        Self.patchUInt32(&archive, at: 22, 2)
        #expect(throws: ZipReadError.headerMismatch(entry: "a.txt", field: "uncompressed size")) {
            try ZipReader.read(archive)
        }
    }

    @Test func rejectsCorruptedData() throws {
        var archive = try ZipWriter.archive([ZipEntry(name: "a.bin", data: [1, 2, 3], method: .stored)])
        archive[30 + 5] ^= 0xFF
        #expect(throws: ZipReadError.checksumMismatch(entry: "a.bin", declared: 0x55bc801d, actual: 0xeb24b4f0)) {
            try ZipReader.read(archive)
        }
    }

    @Test func stopsZipBombsByDeclaredSize() throws {
        let archive = try Self.pythonArchive(
            "z.writestr(zipfile.ZipInfo(\"bomb.txt\"), b\"\\0\" * 50_000_000, compress_type=zipfile.ZIP_DEFLATED)"
        )
        #expect(archive.count < 100_000)
        #expect(throws: ZipReadError.entryTooLarge(entry: "bomb.txt", size: 50_000_000, limit: 16 << 20)) {
            try ZipReader.read(archive)
        }
        let limits = ZipReadLimits(maxEntryCount: 10, maxEntrySize: 60_000_000, maxTotalSize: 1_000_000)
        #expect(throws: ZipReadError.archiveTooLarge(size: 50_000_000, limit: 1_000_000)) {
            try ZipReader.read(archive, limits: limits)
        }
    }

    @Test func stopsBombsThatUnderstateTheirSize() throws {
        // The declared size is small, the stream inflates far beyond it: inflation stops at the declared size.
        var archive = try ZipWriter.archive([
            ZipEntry(name: "liar.txt", data: Array(repeating: 0, count: 10_000_000), method: .deflated)
        ])
        Self.patchUInt32(&archive, at: 22, 100)
        Self.patchUInt32(&archive, at: Self.centralHeaderOffset(archive) + 24, 100)
        #expect(throws: ZipReadError.sizeMismatch(entry: "liar.txt", field: "uncompressed", declared: 100, actual: 101)) {
            try ZipReader.read(archive)
        }
    }

    @Test func rejectsTooManyEntries() throws {
        let entries = try (0..<5).map { try ZipEntry(name: "f\($0)", data: [], method: .stored) }
        let limits = ZipReadLimits(maxEntryCount: 4, maxEntrySize: 10, maxTotalSize: 10)
        #expect(throws: ZipReadError.tooManyEntries(count: 5, limit: 4)) {
            try ZipReader.read(ZipWriter.archive(entries), limits: limits)
        }
    }

    @Test func rejectsTruncatedAndForeignInput() throws {
        let archive = try ZipRoundTripTests.sampleArchive()
        #expect(throws: ZipReadError.notAnArchive) { try ZipReader.read(Array(archive.dropLast(1))) }
        #expect(throws: ZipReadError.notAnArchive) { try ZipReader.read(Array("not a zip".utf8)) }
        #expect(throws: ZipReadError.notAnArchive) { try ZipReader.read([]) }
        // Cut off the front: offsets in the end record now point past the data.
        #expect(throws: ZipReadError.self) { try ZipReader.read(Array(archive.dropFirst(40))) }
    }

    @Test func rejectsDirectoryEntriesNeverButFlagsThem() throws {
        let archive = try Self.pythonArchive("z.writestr(\"en.lproj/\", b\"\")\nz.writestr(\"en.lproj/order.strings\", b\"x\")")
        let files = try ZipReader.read(archive)
        #expect(files.map(\.isDirectory) == [true, false])
    }

    // MARK: - Helpers

    static func centralHeaderOffset(_ archive: [UInt8]) -> Int {
        Int(archive.u32(at: archive.count - 22 + 16))
    }

    static func patchUInt32(_ archive: inout [UInt8], at offset: Int, _ value: UInt32) {
        for index in 0..<4 { archive[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
}
