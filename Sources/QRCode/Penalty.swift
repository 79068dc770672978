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

    /// Scores a `size` × `size` grid given row-major.
    init(size: Int, dark: [Bool]) {
        func at(_ x: Int, _ y: Int) -> Bool { dark[y * size + x] }
        var darkCount = 0
        for line in 0..<size {
            runs += Self.runPenalty(size) { at($0, line) } + Self.runPenalty(size) { at(line, $0) }
            finderLike += Self.finderLikePenalty(size) { at($0, line) } + Self.finderLikePenalty(size) { at(line, $0) }
            for x in 0..<size where at(x, line) { darkCount += 1 }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = at(x, y)
                if at(x + 1, y) == colour && at(x, y + 1) == colour && at(x + 1, y + 1) == colour { blocks += 3 }
            }
        }
        let total = size * size
        if total > 0 { balance = 10 * (abs(darkCount * 20 - total * 10) / total) }
    }

    /// N1 for one line of `length` modules read through `module`.
    private static func runPenalty(_ length: Int, _ module: (Int) -> Bool) -> Int {
        var penalty = 0
        var run = 0
        for i in 0..<length {
            run = i > 0 && module(i) == module(i - 1) ? run + 1 : 1
            // A run of five scores 3 when it is reached, and each module beyond adds 1.
            if run == 5 { penalty += 3 } else if run > 5 { penalty += 1 }
        }
        return penalty
    }

    /// Dark-light-dark-dark-dark-light-dark, the cross-section of a finder pattern.
    private static let finderPattern = [true, false, true, true, true, false, true]

    /// N3 for one line: occurrences of the 1:1:3:1:1 pattern with a light area of four on either side, counted from
    /// left to right without sharing modules. Table 11 leaves overlapping occurrences (`10111011101`) open; counting
    /// them once is what the segno reference encoder does, so both choose the same masks.
    private static func finderLikePenalty(_ length: Int, _ module: (Int) -> Bool) -> Int {
        func isLight(_ range: Range<Int>) -> Bool { range.allSatisfy { !(0..<length).contains($0) || !module($0) } }
        var penalty = 0
        var start = 0
        while start + finderPattern.count <= length {
            if finderPattern.indices.allSatisfy({ module(start + $0) == finderPattern[$0] })
                && (isLight((start - 4)..<start) || isLight((start + 7)..<(start + 11)))
            {
                penalty += 40
                start += finderPattern.count
            } else {
                start += 1
            }
        }
        return penalty
    }
}
