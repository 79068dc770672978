/// Format and version information (ISO/IEC 18004 §7.9 and §7.10): the error correction level and mask, and for
/// version 7 and up the version number, each protected by a BCH code and written twice.
enum FormatInformation {
    /// The 15 format bits: level and mask, their BCH(15,5) check bits (generator 0x537), masked with 0x5412 so
    /// that no combination is all light.
    static func bits(errorCorrection: QRCode.ErrorCorrection, mask: Mask) -> Int {
        let data = errorCorrection.formatBits << 3 | mask.number
        return (data << 10 | bchRemainder(data, generator: 0x537, degree: 10)) ^ 0x5412
    }

    /// The 18 version bits: the version number and its BCH(18,6) check bits (generator 0x1F25).
    static func versionBits(_ version: Version) -> Int {
        version.number << 12 | bchRemainder(version.number, generator: 0x1F25, degree: 12)
    }

    /// `data` × x^degree modulo `generator`, over GF(2).
    private static func bchRemainder(_ data: Int, generator: Int, degree: Int) -> Int {
        var remainder = data << degree
        for bit in stride(from: remainder.bitWidth - remainder.leadingZeroBitCount - 1, through: degree, by: -1)
        where remainder >> bit & 1 != 0 {
            remainder ^= generator << (bit - degree)
        }
        return remainder
    }
}

extension QRCode.ErrorCorrection {
    /// The two error correction bits of the format information (Table 12): L 01, M 00, Q 11, H 10.
    var formatBits: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }
}

extension Matrix {
    /// Writes the format bits beside the top-left finder pattern, split between the other two, and the dark module
    /// above the bottom-left finder (Figure 25). Bit 0 is the least significant.
    mutating func drawFormatInformation(errorCorrection: QRCode.ErrorCorrection, mask: Mask) {
        let bits = FormatInformation.bits(errorCorrection: errorCorrection, mask: mask)
        func bit(_ i: Int) -> Bool { bits >> i & 1 != 0 }
        // Around the top-left finder: down column 8 (skipping the timing row), then left along row 8.
        for i in 0..<6 { setFunction(x: 8, y: i, dark: bit(i)) }
        setFunction(x: 8, y: 7, dark: bit(6))
        setFunction(x: 8, y: 8, dark: bit(7))
        setFunction(x: 7, y: 8, dark: bit(8))
        for i in 9..<15 { setFunction(x: 14 - i, y: 8, dark: bit(i)) }
        // The second copy: bits 0–7 along row 8 under the top-right finder, bits 8–14 down column 8 beside the
        // bottom-left one.
        for i in 0..<8 { setFunction(x: size - 1 - i, y: 8, dark: bit(i)) }
        for i in 8..<15 { setFunction(x: 8, y: size - 15 + i, dark: bit(i)) }
        setFunction(x: 8, y: size - 8, dark: true)
    }

    /// Writes the version bits in the 6 × 3 block left of the top-right finder and its transpose above the
    /// bottom-left one (Figure 27); versions below 7 have none.
    mutating func drawVersionInformation(_ version: Version) {
        guard version.number >= 7 else { return }
        let bits = FormatInformation.versionBits(version)
        for i in 0..<18 {
            let dark = bits >> i & 1 != 0
            let long = size - 11 + i % 3
            let short = i / 3
            setFunction(x: long, y: short, dark: dark)
            setFunction(x: short, y: long, dark: dark)
        }
    }
}
