import Testing

@testable import QRCode

/// Byte-mode capacities at the edges of the version range, from Table 7 of the standard.
struct CapacityTests {
    struct Edge: Sendable, CustomTestStringConvertible {
        var version: Int
        var level: QRCode.ErrorCorrection
        var capacity: Int
        var testDescription: String { "version \(version) at \(level): \(capacity) bytes" }
    }

    static let edges: [Edge] = [
        Edge(version: 1, level: .low, capacity: 17), Edge(version: 1, level: .medium, capacity: 14),
        Edge(version: 1, level: .quartile, capacity: 11), Edge(version: 1, level: .high, capacity: 7),
        Edge(version: 10, level: .low, capacity: 271), Edge(version: 10, level: .medium, capacity: 213),
        Edge(version: 10, level: .quartile, capacity: 151), Edge(version: 10, level: .high, capacity: 119),
        Edge(version: 40, level: .low, capacity: 2953), Edge(version: 40, level: .medium, capacity: 2331),
        Edge(version: 40, level: .quartile, capacity: 1663), Edge(version: 40, level: .high, capacity: 1273),
    ]

    @Test(arguments: edges)
    func theCapacityFitsExactlyAndOneMoreByteMovesUpOrThrows(edge: Edge) throws {
        #expect(Version(number: edge.version).byteCapacity(at: edge.level) == edge.capacity)
        let full = try QRCode(Inputs.url(length: edge.capacity), errorCorrection: edge.level)
        #expect(full.version == edge.version)
        let oneMore = Inputs.url(length: edge.capacity + 1)
        if edge.version < 40 {
            #expect(try QRCode(oneMore, errorCorrection: edge.level).version == edge.version + 1)
        } else {
            #expect(throws: QRCode.Error.tooLong(bytes: edge.capacity + 1, maximum: edge.capacity)) {
                try QRCode(oneMore, errorCorrection: edge.level)
            }
        }
    }

    @Test func emptyInputIsVersion1AndAHugeCollectionIsRefusedWithoutBeingCopied() throws {
        #expect(try QRCode([UInt8]()).version == 1)
        // A terabyte-long collection that exists only as a count: refused from the count alone.
        let huge = repeatElement(UInt8(0x41), count: 1 << 40)
        #expect(throws: QRCode.Error.tooLong(bytes: 1 << 40, maximum: 2331)) { try QRCode(huge) }
    }

    @Test func theDefaultLevelIsMediumAndEqualInputsGiveEqualSymbols() throws {
        let url = Inputs.url(length: 77)
        let code = try QRCode(url)
        #expect(code.errorCorrection == .medium)
        #expect(code == (try QRCode(url, errorCorrection: .medium)))
        #expect(code != (try QRCode(url, errorCorrection: .high)))
    }
}
