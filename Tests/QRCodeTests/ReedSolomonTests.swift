import Testing

@testable import QRCode

/// Error correction and mask scoring checked against worked values, not against the encoder's own output.
struct ReedSolomonTests {
    @Test func theFieldAndTheDegree7GeneratorMatchTheStandard() {
        // α⁸ = α⁴ + α³ + α² + 1 under 0x11D.
        #expect(GF256.exp[8] == 0x1D && GF256.exp[255] == 1 && GF256.multiply(0x80, 2) == 0x1D)
        // Annex A: g(x) = x⁷ + α⁸⁷x⁶ + α²²⁹x⁵ + α¹⁴⁶x⁴ + α¹⁴⁹x³ + α²³⁸x² + α¹⁰²x + α²¹.
        #expect(ReedSolomon(degree: 7).generator == [87, 229, 146, 149, 238, 102, 21].map { GF256.exp[$0] })
    }

    /// Annex I: "01234567" as version 1-M; its 16 data codewords and their 10 error correction codewords.
    @Test func theWorkedExampleOfAnnexIGivesItsErrorCorrectionCodewords() {
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        let expected: [UInt8] = [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55]
        #expect(ReedSolomon(degree: 10).remainder(of: data) == expected)
    }

    /// Byte-mode data codewords: mode 0100, an 8-bit count, the bytes, terminator, then 0xEC 0x11 padding.
    @Test func dataCodewordsArePaddedAsSection7_4_10Says() {
        let data = Codewords.data(for: Array("AB".utf8), version: Version(number: 1), errorCorrection: .high)
        #expect(data == [0x40, 0x24, 0x14, 0x20, 0xEC, 0x11, 0xEC, 0x11, 0xEC])
    }
}

/// Each penalty rule on lines and grids small enough to count by hand.
struct PenaltyTests {
    /// The text's modules ("#" dark) between the light margins the rules expect, scored by `rule`.
    private func score(_ text: String, _ rule: (Penalty.Line, Int) -> Int) -> Int {
        let margin = [Bool](repeating: false, count: Penalty.margin)
        return (margin + text.map { $0 == "#" } + margin).withUnsafeBufferPointer { rule($0, text.count) }
    }

    @Test func runsOfFiveOrMoreScoreThreePlusTheExcess() {
        #expect(score("####", Penalty.runPenalty) == 0)
        #expect(score(".....", Penalty.runPenalty) == 3)
        #expect(score("######", Penalty.runPenalty) == 4)
        #expect(score("#####.#####", Penalty.runPenalty) == 6)
    }

    @Test func finderLikePatternsNeedFourLightModulesOnOneSideAndCountOnce() {
        #expect(score("#.###.#....", Penalty.finderLikePenalty) == 40)
        #expect(score("##.###.#....", Penalty.finderLikePenalty) == 40) // light after only
        #expect(score("....#.###.#.#", Penalty.finderLikePenalty) == 40) // light before only
        #expect(score("#.###.#", Penalty.finderLikePenalty) == 40) // outside the symbol is light
        #expect(score("#.#.#.###.#.#.#.", Penalty.finderLikePenalty) == 0) // no light area on either side
        // Two occurrences sharing a module count once.
        #expect(score("....#.###.###.#....", Penalty.finderLikePenalty) == 40)
    }

    @Test func blocksAndBalanceScoreAsTable11Says() {
        // 7 × 7 checkerboard under a dark first row: one run of 7 (3 + 2), no one-colour 2 × 2 block, no
        // finder-like pattern, and 28 of 49 dark (57%): one full 5% step from half.
        let checker = (0..<7).flatMap { y in (0..<7).map { x in y == 0 || (x + y) % 2 == 1 } }
        let penalty = Penalty(size: 7, dark: checker)
        #expect(penalty.runs == 5 && penalty.blocks == 0 && penalty.finderLike == 0 && penalty.balance == 10)
        // All light 5 × 5: ten runs of 5 (3 each), 16 blocks (3 each), 0% dark (ten steps of 5%).
        let light = Penalty(size: 5, dark: [Bool](repeating: false, count: 25))
        #expect(light.runs == 30 && light.blocks == 48 && light.finderLike == 0 && light.balance == 100)
        #expect(light.total == 178)
    }
}
