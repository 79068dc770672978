/// Arithmetic in GF(256) with the primitive polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D), the field of QR code error
/// correction, through log and antilog tables of the generator α = 2.
enum GF256 {
    /// αⁱ for i in 0..<510, twice round, so a product's exponent sum needs no reduction modulo 255.
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for i in 0..<255 {
            table[i] = UInt8(value)
            table[i + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// The exponent of each non-zero element; `log[0]` is unused.
    static let log: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for i in 0..<255 { table[Int(exp[i])] = i }
        return table
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0, b != 0 else { return 0 }
        return exp[log[Int(a)] + log[Int(b)]]
    }
}

/// A Reed–Solomon encoder producing `degree` error correction codewords (ISO/IEC 18004 §7.5.2).
struct ReedSolomon: Sendable {
    /// The generator polynomial (x − α⁰)(x − α¹)…(x − α^(degree−1)), coefficients from the highest power down, without
    /// the leading 1.
    let generator: [UInt8]

    init(degree: Int) {
        // Multiply in one factor (x + αⁱ) at a time; subtraction is addition in GF(2⁸).
        var coefficients: [UInt8] = [1]
        for i in 0..<degree {
            let root = GF256.exp[i]
            var product = coefficients + [0]
            for j in 1..<product.count { product[j] ^= GF256.multiply(coefficients[j - 1], root) }
            coefficients = product
        }
        generator = Array(coefficients.dropFirst())
    }

    /// The remainder of `data` × x^degree divided by the generator: the error correction codewords.
    func remainder(of data: some Collection<UInt8>) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        guard !remainder.isEmpty else { return remainder }
        // Polynomial long division as a shift register.
        for byte in data {
            let factor = byte ^ remainder[0]
            for i in 0..<(remainder.count - 1) { remainder[i] = remainder[i + 1] ^ GF256.multiply(generator[i], factor) }
            remainder[remainder.count - 1] = GF256.multiply(generator[remainder.count - 1], factor)
        }
        return remainder
    }
}
