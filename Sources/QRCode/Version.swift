/// A QR code version, 1 to 40, and what ISO/IEC 18004 tabulates for it: size, alignment pattern centres, codeword
/// counts and error correction blocks.
struct Version: Sendable, Equatable {
    /// 1 to 40.
    let number: Int

    static let all = (1...40).map(Version.init(number:))
    static let largest = Version(number: 40)

    /// The smallest version holding `count` bytes in byte mode at `level`, or `nil` when even version 40 cannot.
    static func smallest(holding count: Int, at level: QRCode.ErrorCorrection) -> Version? {
        all.first { $0.byteCapacity(at: level) >= count }
    }

    /// Modules on each side.
    var size: Int { 17 + 4 * number }

    /// The rows (and columns) of alignment pattern centres (Annex E, Table E.1); every pairing of two of them has a
    /// pattern except the three that fall on the finder patterns.
    var alignmentCenters: [Int] { Self.alignmentCenters[number - 1] }

    /// The byte-mode character count field: 8 bits up to version 9, 16 from version 10 (Table 3).
    var characterCountBits: Int { number < 10 ? 8 : 16 }

    /// Codewords (data and error correction) the symbol holds: every module left by the function patterns, format and
    /// version information, in whole bytes (the remainder bits stay light).
    var totalCodewords: Int {
        let finders = 3 * 64 // 7 × 7 patterns with their separators, 8 × 8 each
        let timing = 2 * (size - 16)
        let centers = alignmentCenters.count
        // Patterns on row 6 or column 6 share 5 modules each with a timing pattern.
        let alignment = centers < 2 ? 0 : 25 * (centers * centers - 3) - 2 * 5 * (centers - 2)
        let formatAndDarkModule = 31
        let versionInformation = number >= 7 ? 36 : 0
        let modules = size * size - finders - timing - alignment - formatAndDarkModule - versionInformation
        return modules / 8
    }

    /// How the codewords split into error correction blocks at `level` (Table 9).
    func blocks(at level: QRCode.ErrorCorrection) -> (count: Int, errorCorrectionCodewords: Int) {
        let row = level.tableRow
        return (Self.blockCounts[row][number - 1], Self.errorCorrectionCodewordsPerBlock[row][number - 1])
    }

    /// Data codewords at `level`: all codewords less each block's error correction.
    func dataCodewords(at level: QRCode.ErrorCorrection) -> Int {
        let blocks = blocks(at: level)
        return totalCodewords - blocks.count * blocks.errorCorrectionCodewords
    }

    /// The most bytes byte mode fits at `level`: the data bits less the 4-bit mode indicator and the count field.
    func byteCapacity(at level: QRCode.ErrorCorrection) -> Int {
        (dataCodewords(at: level) * 8 - 4 - characterCountBits) / 8
    }

    private static let alignmentCenters: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
        [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62],
        [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82], [6, 30, 58, 86],
        [6, 34, 62, 90],
        [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106], [6, 32, 58, 84, 110],
        [6, 30, 58, 86, 114], [6, 34, 62, 90, 118],
        [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130], [6, 30, 56, 82, 108, 134],
        [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142], [6, 34, 62, 90, 118, 146],
        [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158],
        [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
    ]

    // Rows L, M, Q, H; columns versions 1 to 40.
    private static let errorCorrectionCodewordsPerBlock: [[Int]] = [
        [
            7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
            28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
            26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        [
            13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
            28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
            30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    private static let blockCounts: [[Int]] = [
        [
            1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
            8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
        ],
        [
            1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
            17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        [
            1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
            23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        [
            1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
            25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]
}

extension QRCode.ErrorCorrection {
    /// The row of the block tables, which list L, M, Q, H in that order.
    fileprivate var tableRow: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }
}
