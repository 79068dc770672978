/// The penalty score of a masked symbol (ISO/IEC 18004 §7.8.3.1, Table 11); the mask with the lowest total is used.
struct Penalty: Sendable, Equatable {
    /// N1: 3 + (length − 5) for each run of five or more same-coloured modules in a row or column.
    var runs = 0
    /// N2: 3 for each 2 × 2 block of one colour (overlapping blocks each count, so an m × n block scores
    /// 3 × (m − 1) × (n − 1)).
    var blocks = 0
    /// N3: 40 for each dark-light-dark-dark-dark-light-dark (1:1:3:1:1) run in a row or column with four light modules
    /// before or after it; outside the symbol counts as light, as the quiet zone is.
    var finderLike = 0
    /// N4: 10 for each full 5% by which the proportion of dark modules departs from 50%.
    var balance = 0

    var total: Int { runs + blocks + finderLike + balance }

    /// Light modules on either side of a line copied into a ``Line``: the quiet zone, as far as N3 looks.
    static let margin = 4

    /// One row or column between light margins, so the rules read past its ends without bounds checks.
    typealias Line = UnsafeBufferPointer<Bool>

    /// Scores a `size` × `size` grid given row-major.
    init(size: Int, dark: [Bool]) {
        // One buffer for every row and column, rather than one per line: a symbol is scored 8 times. Read through
        // unsafe buffers, all indices being within the grid and the margins by construction.
        var buffer = [Bool](repeating: false, count: size + 2 * Self.margin)
        dark.withUnsafeBufferPointer { grid in
            buffer.withUnsafeMutableBufferPointer { line in
                for index in 0..<size {
                    for i in 0..<size { line[Self.margin + i] = grid[index * size + i] }
                    score(Line(line), length: size)
                    for i in 0..<size { line[Self.margin + i] = grid[i * size + index] }
                    score(Line(line), length: size)
                }
            }
            // Counted without branches: on masked data they would be mispredicted half the time.
            var darkCount = 0
            for index in grid.indices { darkCount += bit(grid[index]) }
            for y in 0..<max(0, size - 1) {
                for x in 0..<(size - 1) {
                    let index = y * size + x
                    let sum = bit(grid[index]) + bit(grid[index + 1]) + bit(grid[index + size]) + bit(grid[index + size + 1])
                    blocks += sum & 3 == 0 ? 3 : 0 // 0 or 4 dark: one colour
                }
            }
            let total = size * size
            if total > 0 { balance = 10 * (abs(darkCount * 20 - total * 10) / total) }
        }
    }

    private mutating func score(_ line: Line, length: Int) {
        runs += Self.runPenalty(line, length: length)
        finderLike += Self.finderLikePenalty(line, length: length)
    }

    /// N1 for one line of `length` modules after the margin.
    static func runPenalty(_ line: Line, length: Int) -> Int {
        // A run of L ≥ 5 scores L − 2: 1 for each of its L − 4 windows of five like modules, and 2 more for the first.
        // Found through a sliding 6-module window (bit 0 the newest), without branches on the modules.
        guard length >= 5 else { return 0 }
        var window = bit(!line[margin]) // a module unlike the first stands before the line
        for i in margin..<(margin + 4) { window = window << 1 | bit(line[i]) }
        var penalty = 0
        for i in (margin + 4)..<(margin + length) {
            window = (window << 1 | bit(line[i])) & 0x3F
            let five = window & 0x1F
            let alike = five == 0 || five == 0x1F
            let first = (window >> 5 ^ window >> 4) & 1 == 1
            penalty += alike ? (first ? 3 : 1) : 0
        }
        return penalty
    }

    /// N3 for one line: occurrences of the 1:1:3:1:1 pattern with a light area of four on either side, counted from
    /// left to right without sharing modules. Table 11 leaves overlapping occurrences (`10111011101`) open; counting
    /// them once is what the segno reference encoder does, so both choose the same masks.
    static func finderLikePenalty(_ line: Line, length: Int) -> Int {
        // A 15-module window slides along: four before the candidate, its seven, four after (bit 0 the last).
        guard length >= 7 else { return 0 }
        var window = 0
        for i in 0..<14 { window = window << 1 | bit(line[i]) }
        var penalty = 0
        var nextStart = margin
        for start in margin..<(margin + max(0, length - 6)) {
            window = (window << 1 | bit(line[start + 10])) & 0x7FFF
            let lightBefore = window >> 11 == 0
            let lightAfter = window & 0xF == 0
            if window >> 4 & 0x7F == 0b1011101 && (lightBefore || lightAfter) && start >= nextStart {
                penalty += 40
                nextStart = start + 7
            }
        }
        return penalty
    }
}

/// 1 for dark, 0 for light, for arithmetic instead of branches.
@inline(__always) private func bit(_ dark: Bool) -> Int { dark ? 1 : 0 }
