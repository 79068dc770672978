/// One of the eight data mask patterns (ISO/IEC 18004 §7.8.2, Table 10), which invert data modules to break up
/// patterns a reader could mistake for finder patterns and to balance dark and light.
struct Mask: Sendable, Equatable {
    /// 0 to 7, as written in the format information.
    let number: Int

    static let all = (0..<8).map(Mask.init(number:))

    /// Whether the mask inverts the module in column `x`, row `y`.
    func inverts(x: Int, y: Int) -> Bool {
        switch number {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }
}

extension Matrix {
    /// The penalty score of each mask applied to this unmasked matrix, indexed by mask number.
    ///
    /// Scored before the format and version information is drawn, following the order of §7.1 (mask in step 6,
    /// format and version information in step 7), as the segno reference encoder does too.
    func maskPenalties() -> [Int] {
        Mask.all.map { mask in
            // One copy of the grid per mask (copied on the first write), not per module.
            var trial = self
            trial.apply(mask)
            return Penalty(size: size, dark: trial.dark).total
        }
    }

    /// The mask with the lowest penalty; the first of equal scores, as the reference encoders pick.
    func bestMask() -> Mask {
        let penalties = maskPenalties()
        let best = penalties.indices.min { penalties[$0] < penalties[$1] } ?? 0
        return Mask.all[best]
    }
}
