import Foundation
import TestSupport
import Testing

@testable import QRCode

/// Known answers from an independent encoder: segno (pinned in requirements.txt), forced to byte mode at the same
/// level and without raising the level to fill the version, compared module by module.
@Suite(.enabled(if: ExternalTools.pythonHasModule("segno"), "needs Python's segno (scripts/python-env)"))
struct ReferenceEncoderTests {
    /// What segno makes of one input; `version` and `mask` nil let segno choose them.
    private struct Case: Codable {
        var hex: String
        var error: String
        var version: Int?
        var mask: Int?
    }

    private struct Symbol: Codable, Equatable {
        var version: Int
        var mask: Int
        var rows: [String]

        /// The (x, y) of modules that differ, the first few, to show where two symbols part.
        func differences(from other: Symbol) -> [String] {
            var found: [String] = []
            for (y, (mine, theirs)) in zip(rows, other.rows).enumerated() {
                for (x, (a, b)) in zip(mine, theirs).enumerated() where a != b && found.count < 12 { found.append("(\(x), \(y))") }
            }
            return found
        }
    }

    private func expectEqual(_ ours: Symbol, _ reference: Symbol, _ what: String) {
        #expect(ours.version == reference.version, "\(what): version")
        #expect(ours.mask == reference.mask, "\(what): mask")
        #expect(ours.rows.count == reference.rows.count, "\(what): size")
        if ours.version == reference.version && ours.mask == reference.mask {
            let differences = ours.differences(from: reference)
            #expect(differences.isEmpty, "\(what): modules differ at \(differences.joined(separator: " "))")
        }
    }

    private static let script = """
        import json, sys, segno
        from segno import encoder
        # segno 1.6.6 adds a zero byte after the terminator when the bit stream already ends on a byte boundary
        # (upstream issue #148; §7.4.10 pads only to reach the boundary); the fix proposed there:
        encoder.write_padding_bits = lambda buff, version, length: buff.extend([0] * (-length % 8))
        out = []
        for case in json.load(sys.stdin):
            code = segno.make(bytes.fromhex(case["hex"]), error=case["error"], version=case.get("version"),
                              mode="byte", mask=case.get("mask"), micro=False, boost_error=False)
            out.append({"version": code.version, "mask": code.mask,
                        "rows": ["".join(str(m) for m in row) for row in code.matrix]})
        json.dump(out, sys.stdout)
        """

    private func reference(_ cases: [Case]) throws -> [Symbol] {
        let output = try ExternalTools.python(Self.script, input: Array(try JSONEncoder().encode(cases)))
        return try JSONDecoder().decode([Symbol].self, from: Data(output))
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Compares our symbol for each input with segno's own choice of version and mask: equal versions check the
    /// capacity tables, equal masks the penalty rules, equal modules everything else.
    private func expectSameAsReference(_ inputs: [([UInt8], QRCode.ErrorCorrection)]) throws {
        let expected = try reference(inputs.map { Case(hex: hex($0.0), error: Inputs.letter($0.1)) })
        try #require(expected.count == inputs.count)
        for ((bytes, level), reference) in zip(inputs, expected) {
            let code = try QRCode(bytes, errorCorrection: level)
            let ours = Symbol(version: code.version, mask: code.mask.number, rows: Inputs.rows(code))
            expectEqual(ours, reference, "\(bytes.count) bytes at \(level)")
        }
    }

    @Test func urlsAndEveryByteValueAtEveryLevelMatchTheReference() throws {
        let inputs = (Inputs.urlLengths.map(Inputs.url(length:)) + [Inputs.allBytes]).flatMap { bytes in
            Inputs.levels.map { (bytes, $0) }
        }
        try expectSameAsReference(inputs)
    }

    /// Each version filled to capacity, cycling through the levels: every row of the alignment, block and
    /// capacity tables, and version information from 7 on.
    @Test func everyVersionFilledToCapacityMatchesTheReference() throws {
        let inputs = Version.all.map { version in
            let level = Inputs.levels[version.number % 4]
            return (Inputs.url(length: version.byteCapacity(at: level)), level)
        }
        try expectSameAsReference(inputs)
    }

    /// Every mask forced on both sides, for a version without and one with version information: the mask
    /// patterns and the format information of each mask, whatever the penalty rules choose.
    @Test func everyForcedMaskMatchesTheReference() throws {
        let inputs = [(Inputs.url(length: 40), QRCode.ErrorCorrection.quartile), (Inputs.url(length: 200), .low)]
        var cases: [Case] = []
        var ours: [Symbol] = []
        for (bytes, level) in inputs {
            for mask in Mask.all {
                let code = try QRCode(bytes, errorCorrection: level, mask: mask)
                ours.append(Symbol(version: code.version, mask: mask.number, rows: Inputs.rows(code)))
                cases.append(Case(hex: hex(bytes), error: Inputs.letter(level), version: code.version, mask: mask.number))
            }
        }
        let expected = try reference(cases)
        try #require(expected.count == ours.count)
        for (index, (mine, theirs)) in zip(ours, expected).enumerated() {
            expectEqual(mine, theirs, "input \(index / 8), mask \(index % 8)")
        }
    }
}
