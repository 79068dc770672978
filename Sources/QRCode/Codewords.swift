/// The final codeword sequence of a symbol (ISO/IEC 18004 §7.4–7.6): the byte-mode segment, padded to the data
/// capacity, split into blocks, each followed by its Reed–Solomon codewords, and interleaved.
enum Codewords {
    /// Mode indicator of byte mode (Table 2).
    private static let byteMode = 0b0100
    /// Pad codewords that alternately fill the data capacity (§7.4.10).
    private static let padding: [UInt8] = [0xEC, 0x11]

    /// Data and error correction codewords for `bytes`, in the order they are placed in the matrix.
    ///
    /// `bytes` must fit: at most `version.byteCapacity(at: errorCorrection)`.
    static func message(for bytes: [UInt8], version: Version, errorCorrection: QRCode.ErrorCorrection) -> [UInt8] {
        interleave(data(for: bytes, version: version, errorCorrection: errorCorrection), version: version, errorCorrection: errorCorrection)
    }

    /// Mode indicator, character count, the bytes, a terminator of up to four zero bits, zero bits to the byte boundary,
    /// then pad codewords up to the data capacity.
    static func data(for bytes: [UInt8], version: Version, errorCorrection: QRCode.ErrorCorrection) -> [UInt8] {
        let capacity = version.dataCodewords(at: errorCorrection)
        var bits = BitWriter(capacity: capacity)
        bits.append(byteMode, count: 4)
        bits.append(bytes.count, count: version.characterCountBits)
        for byte in bytes { bits.append(Int(byte), count: 8) }
        // The terminator is cut short when the data capacity ends first; a partial byte is completed with zeros.
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        var codewords = bits.bytes
        for index in 0..<(capacity - codewords.count) { codewords.append(padding[index % 2]) }
        return codewords
    }

    /// Splits `data` into the blocks of Table 9 (the shorter blocks first, the longer ones one codeword longer), then
    /// takes the first data codeword of every block, the second, and so on, then the error correction codewords alike.
    static func interleave(_ data: [UInt8], version: Version, errorCorrection: QRCode.ErrorCorrection) -> [UInt8] {
        let (blockCount, correctionLength) = version.blocks(at: errorCorrection)
        let shortDataLength = data.count / blockCount
        let longBlocks = data.count % blockCount
        let shortBlocks = blockCount - longBlocks
        let encoder = ReedSolomon(degree: correctionLength)

        var starts: [Int] = []
        var corrections: [[UInt8]] = []
        var start = 0
        for block in 0..<blockCount {
            let length = shortDataLength + (block < shortBlocks ? 0 : 1)
            starts.append(start)
            corrections.append(encoder.remainder(of: data[start..<(start + length)]))
            start += length
        }

        var message: [UInt8] = []
        message.reserveCapacity(version.totalCodewords)
        for index in 0...shortDataLength {
            for block in 0..<blockCount where index < shortDataLength || block >= shortBlocks {
                message.append(data[starts[block] + index])
            }
        }
        for index in 0..<correctionLength {
            for block in 0..<blockCount { message.append(corrections[block][index]) }
        }
        return message
    }
}

/// Appends bit fields most significant bit first into bytes.
private struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends the low `count` bits of `value`.
    mutating func append(_ value: Int, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 != 0 { bytes[count / 8] |= 0x80 >> (count % 8) }
            count += 1
        }
    }
}
