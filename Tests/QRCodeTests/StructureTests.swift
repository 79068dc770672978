import Testing

@testable import QRCode

/// The fixed parts of a symbol read from the public module grid, the way a reader finds them.
struct StructureTests {
    /// One input of a test: a URL of `length` bytes at `level`.
    struct Sample: Sendable, CustomTestStringConvertible {
        var length: Int
        var level: QRCode.ErrorCorrection
        var testDescription: String { "\(length) bytes at \(level)" }

        func code() throws -> QRCode { try QRCode(Inputs.url(length: length), errorCorrection: level) }
    }

    /// Versions 1, 6 (the last without version information), 7 and 40.
    static let samples = [Sample(length: 10, level: .low), Sample(length: 100, level: .medium)] + withVersionInformation
    static let withVersionInformation = [Sample(length: 120, level: .medium), Sample(length: 1250, level: .high)]

    @Test(arguments: samples)
    func findersTimingAndTheDarkModuleAreInPlace(sample: Sample) throws {
        let code = try sample.code()
        #expect([1, 6, 7, 40].contains(code.version) && code.size == 17 + 4 * code.version)
        for (left, top) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            for dy in -1...7 {
                for dx in -1...7 {
                    let x = left + dx
                    let y = top + dy
                    guard (0..<code.size).contains(x), (0..<code.size).contains(y) else { continue }
                    // Dark 7 × 7 ring, light ring, dark 3 × 3 centre; the separator around it is light.
                    let ring = max(abs(dx - 3), abs(dy - 3))
                    #expect(code.isDark(x: x, y: y) == (ring == 0 || ring == 1 || ring == 3), "finder at \(left), \(top): \(dx), \(dy)")
                }
            }
        }
        for i in 8..<(code.size - 8) {
            #expect(code.isDark(x: i, y: 6) == (i % 2 == 0), "horizontal timing at \(i)")
            #expect(code.isDark(x: 6, y: i) == (i % 2 == 0), "vertical timing at \(i)")
        }
        #expect(code.isDark(x: 8, y: code.size - 8), "the dark module")
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: 0, y: code.size), "outside is light")
    }

    @Test(arguments: samples)
    func bothCopiesOfTheFormatInformationNameTheLevelAndMask(sample: Sample) throws {
        let code = try sample.code()
        let size = code.size
        // Bit 14 first, in the order of Figure 25.
        let first: [(Int, Int)] =
            (0...5).map { ($0, 8) } + [(7, 8), (8, 8), (8, 7)] + (0...5).reversed().map { (8, $0) }
        let second: [(Int, Int)] = (0..<7).map { (8, size - 1 - $0) } + (0..<8).map { (size - 8 + $0, 8) }
        let read = { (positions: [(Int, Int)]) in positions.reduce(0) { $0 << 1 | (code.isDark(x: $1.0, y: $1.1) ? 1 : 0) } }
        #expect(read(first) == read(second))
        let unmasked = read(first) ^ 0x5412
        // The level and mask sit in the top five bits; the ten below are their BCH(15,5) check bits.
        #expect(unmasked >> 13 == code.errorCorrection.formatBits && unmasked >> 10 & 7 == code.mask.number)
        #expect(unmasked == FormatInformation.bits(errorCorrection: code.errorCorrection, mask: code.mask) ^ 0x5412)
        #expect(Self.bchCheck(unmasked, generator: 0x537, degree: 10))
    }

    @Test(arguments: withVersionInformation)
    func versionInformationIsPresentFromVersion7InBothCopies(sample: Sample) throws {
        let code = try sample.code()
        let size = code.size
        var topRight = 0
        var bottomLeft = 0
        for i in (0..<18).reversed() {
            topRight = topRight << 1 | (code.isDark(x: size - 11 + i % 3, y: i / 3) ? 1 : 0)
            bottomLeft = bottomLeft << 1 | (code.isDark(x: i / 3, y: size - 11 + i % 3) ? 1 : 0)
        }
        #expect(code.version >= 7)
        #expect(topRight == bottomLeft && topRight >> 12 == code.version)
        #expect(Self.bchCheck(topRight, generator: 0x1F25, degree: 12))
    }

    /// Table D.1 and Table C.1 of the standard: published code words, not computed by the code under test.
    @Test func formatAndVersionWordsMatchTheStandardsTables() {
        #expect(FormatInformation.versionBits(Version(number: 7)) == 0x07C94)
        #expect(FormatInformation.versionBits(Version(number: 21)) == 0x15683)
        #expect(FormatInformation.versionBits(Version(number: 40)) == 0x28C69)
        #expect(FormatInformation.bits(errorCorrection: .medium, mask: Mask.all[0]) == 0x5412)
        #expect(FormatInformation.bits(errorCorrection: .low, mask: Mask.all[0]) == 0b111011111000100)
        #expect(FormatInformation.bits(errorCorrection: .high, mask: Mask.all[7]) == 0b000100000111011)
    }

    /// The chosen mask scores lowest of the eight, recomputed from the finished symbol: its data modules are
    /// unmasked and masked again with each pattern, with the format and version areas light as while choosing.
    @Test(arguments: samples)
    func theChosenMaskHasTheLowestPenalty(sample: Sample) throws {
        let code = try sample.code()
        let layout = Matrix(version: Version(number: code.version))
        let penalties = Mask.all.map { mask in
            var dark = [Bool](repeating: false, count: code.size * code.size)
            for y in 0..<code.size {
                for x in 0..<code.size {
                    let index = y * code.size + x
                    dark[index] =
                        layout.isFunction[index]
                        ? layout.dark[index]
                        : (code.isDark(x: x, y: y) != code.mask.inverts(x: x, y: y)) != mask.inverts(x: x, y: y)
                }
            }
            return Penalty(size: code.size, dark: dark).total
        }
        #expect(penalties[code.mask.number] == penalties.min())
        #expect(penalties.firstIndex(of: penalties.min() ?? 0) == code.mask.number, "ties go to the lowest mask number")
    }

    /// Whether `word`'s low `degree` bits are the BCH check bits of the rest: the word is a multiple of the generator.
    private static func bchCheck(_ word: Int, generator: Int, degree: Int) -> Bool {
        var remainder = word
        for bit in stride(from: 17, through: degree, by: -1) where remainder >> bit & 1 != 0 {
            remainder ^= generator << (bit - degree)
        }
        return remainder == 0
    }
}
