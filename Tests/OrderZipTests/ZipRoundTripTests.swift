import Foundation
import TestSupport
import Testing

@testable import OrderZip

@Suite("Zip writer and reader round trip")
struct ZipRoundTripTests {
    static let json = Array(#"{"orderIdentifier":"A-1","status":"open","note":"repeat repeat repeat repeat"}"#.utf8)
    static let binary: [UInt8] = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ $0 >> 3) }

    static func sampleArchive() throws -> [UInt8] {
        try ZipWriter.archive([
            ZipEntry(name: "order.json", data: json, method: .deflated),
            ZipEntry(name: "logo.png", data: binary, method: .stored),
            ZipEntry(name: "fr.lproj/order.strings", data: Array("\"k\" = \"v\";".utf8), method: .deflated),
            ZipEntry(name: "zh-Hans.lproj/标志.png", data: [1, 2, 3], method: .stored),
            ZipEntry(name: "empty.txt", data: [], method: .deflated),
        ])
    }

    @Test func readsBackWhatItWrote() throws {
        let files = try ZipReader.read(Self.sampleArchive())
        #expect(
            files.map(\.name) == [
                "order.json", "logo.png", "fr.lproj/order.strings", "zh-Hans.lproj/标志.png", "empty.txt",
            ])
        #expect(files[0].data == Self.json)
        #expect(files[0].method == .deflated)
        #expect(files[1].data == Self.binary)
        #expect(files[1].method == .stored)
        #expect(files[3].data == [1, 2, 3])
        #expect(files[4].data.isEmpty)
    }

    /// Deflate picks its window and memory level by input size; every size must still be read back by zlib itself.
    @Test(arguments: [0, 1, 249, 250, 251, 300, 770, 1000, 4000, 16_000, 40_000, 300_000])
    func deflateOfEverySizeReadsBackInPython(size: Int) throws {
        var generator = SeededGenerator(state: UInt64(size))
        let words = ["order", "json", "ship", "track", "https://", "example", "{", "}", "\"", ":"]
        var text = [UInt8]()
        while text.count < size { text += Array(words[Int.random(in: 0..<words.count, using: &generator)].utf8) }
        text = Array(text.prefix(size))
        let archive = try ZipWriter.archive([ZipEntry(name: "t.txt", data: text, method: .deflated)])
        #expect(try ZipReader.read(archive).first?.data == text)
        let script = "import sys, io, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())).read('t.txt'))"
        #expect(try ExternalTools.python(script, input: archive) == text)
    }

    @Test func outputIsDeterministic() throws {
        #expect(try Self.sampleArchive() == Self.sampleArchive())
    }

    @Test func precomputedEntriesCopyBytes() throws {
        let fresh = try ZipEntry(name: "a.txt", data: Self.json, method: .deflated)
        let cached = try ZipEntry(
            name: "a.txt", method: .deflated, crc32: fresh.crc32, compressedBytes: fresh.compressedBytes,
            uncompressedSize: fresh.uncompressedSize
        )
        #expect(try ZipWriter.archive([fresh]) == ZipWriter.archive([cached]))
        #expect(fresh.compressedBytes.count < Self.json.count)
    }

    @Test func timestampIsEncodedAsDOSTime() {
        // 2024-03-15T13:45:30Z
        let stamp = ZipTimestamp(secondsSince1970: 1_710_510_330)
        #expect(stamp.dosDate == UInt16((2024 - 1980) << 9 | 3 << 5 | 15))
        #expect(stamp.dosTime == UInt16(13 << 11 | 45 << 5 | 15))
        #expect(ZipTimestamp(secondsSince1970: 0) == ZipTimestamp.fixed)
    }

    @Test func pythonZipfileReadsOurArchive() throws {
        let script = """
            import sys, zipfile, io, json
            z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
            assert z.testzip() is None
            print(json.dumps([[i.filename, i.compress_type, i.CRC, len(z.read(i))] for i in z.infolist()]))
            """
        let listing = try ExternalTools.python(script, input: Self.sampleArchive())
        let rows = try #require(JSONSerialization.jsonObject(with: Data(listing)) as? [[Any]])
        #expect(
            rows.map { $0[0] as? String } == [
                "order.json", "logo.png", "fr.lproj/order.strings", "zh-Hans.lproj/标志.png", "empty.txt",
            ])
        #expect(rows.map { $0[1] as? Int } == [8, 0, 8, 0, 8])
        #expect(rows[1][3] as? Int == Self.binary.count)
    }

    @Test func unzipTestsOurArchiveClean() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip")
        try Data(Self.sampleArchive()).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let output = String(decoding: try ExternalTools.run("/usr/bin/unzip", ["-t", path.path]), as: UTF8.self)
        #expect(output.contains("No errors detected"))
    }

    @Test func writerRejectsUnsafeAndDuplicateNames() throws {
        #expect(throws: ZipWriteError.invalidName("../x")) { try ZipEntry(name: "../x", data: [], method: .stored) }
        #expect(throws: ZipWriteError.invalidName("/x")) { try ZipEntry(name: "/x", data: [], method: .stored) }
        #expect(throws: ZipWriteError.invalidName("a\\b")) { try ZipEntry(name: "a\\b", data: [], method: .stored) }
        #expect(throws: ZipWriteError.invalidName("dir/")) { try ZipEntry(name: "dir/", data: [], method: .stored) }
        let entry = try ZipEntry(name: "a", data: [1], method: .stored)
        #expect(throws: ZipWriteError.duplicateName("a")) { try ZipWriter.archive([entry, entry]) }
    }
}
