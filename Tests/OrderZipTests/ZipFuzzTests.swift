import Testing

@testable import OrderZip

/// SplitMix64: a seeded generator so a failing mutation can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Zip reader under random mutation")
struct ZipFuzzTests {
    @Test func randomMutationsNeverCrashOrHang() throws {
        let original = try ZipRoundTripTests.sampleArchive()
        var generator = SeededGenerator(state: 0x0D0E_12AC_C0FF_EE00)
        var rejected = 0
        let limits = ZipReadLimits(maxEntryCount: 100, maxEntrySize: 1 << 20, maxTotalSize: 2 << 20)
        for _ in 0..<5000 {
            var archive = original
            let mutations = Int.random(in: 1...8, using: &generator)
            for _ in 0..<mutations {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    archive[Int.random(in: 0..<archive.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1:
                    // Header fields live near the ends: hit them more often.
                    let index =
                        Bool.random(using: &generator)
                        ? Int.random(in: 0..<min(80, archive.count), using: &generator)
                        : Int.random(in: max(0, archive.count - 300)..<archive.count, using: &generator)
                    archive[index] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
                case 2:
                    archive.removeLast(Int.random(in: 0...min(40, archive.count), using: &generator))
                default:
                    let index = Int.random(in: 0...archive.count, using: &generator)
                    archive.insert(
                        contentsOf: (0..<Int.random(in: 1...6, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) },
                        at: index)
                }
                if archive.isEmpty { break }
            }
            let inspection = ZipReader.inspect(archive, limits: limits)
            if !inspection.problems.isEmpty { rejected += 1 }
            for file in inspection.files { #expect(file.data.count <= limits.maxEntrySize) }
        }
        // Almost every mutation breaks a checked rule (CRC, sizes, structure).
        #expect(rejected > 4000)
    }
}
