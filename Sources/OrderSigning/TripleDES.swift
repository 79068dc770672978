/// DES-EDE3 block decryption (FIPS 46-3), for reading legacy PKCS#12 files and keys.
///
/// swift-crypto does not expose DES. This is a straightforward table-driven implementation used only
/// to decrypt a few kilobytes once at load time; it is not constant-time and never encrypts secrets.
struct TripleDES {
    private let subkeys: [[UInt64]]

    /// `key` is 24 bytes: K1, K2, K3.
    init(key: [UInt8]) {
        subkeys = (0..<3).map { DES.subkeys(Array(key[($0 * 8)..<($0 * 8 + 8)])) }
    }

    /// EDE decryption: D(K1, E(K2, D(K3, block))).
    func decryptBlock(_ block: [UInt8]) -> [UInt8] {
        var value = DES.load(block)
        value = DES.crypt(value, subkeys: subkeys[2].reversed())
        value = DES.crypt(value, subkeys: subkeys[1])
        value = DES.crypt(value, subkeys: subkeys[0].reversed())
        return DES.store(value)
    }
}

private enum DES {
    static func load(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func store(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    /// Applies a FIPS permutation table (1-based bit positions, bit 1 = most significant of `width`).
    static func permute(_ input: UInt64, width: Int, table: [Int]) -> UInt64 {
        var output: UInt64 = 0
        for position in table {
            output = output << 1 | (input >> UInt64(width - position)) & 1
        }
        return output
    }

    static func subkeys(_ key: [UInt8]) -> [UInt64] {
        let permuted = permute(load(key), width: 64, table: pc1)
        var c = permuted >> 28 & 0x0FFF_FFFF
        var d = permuted & 0x0FFF_FFFF
        return shifts.map { shift in
            c = (c << UInt64(shift) | c >> UInt64(28 - shift)) & 0x0FFF_FFFF
            d = (d << UInt64(shift) | d >> UInt64(28 - shift)) & 0x0FFF_FFFF
            return permute(c << 28 | d, width: 56, table: pc2)
        }
    }

    static func crypt(_ block: UInt64, subkeys: [UInt64]) -> UInt64 {
        let permuted = permute(block, width: 64, table: initialPermutation)
        var left = permuted >> 32
        var right = permuted & 0xFFFF_FFFF
        for subkey in subkeys {
            (left, right) = (right, left ^ feistel(right, subkey))
        }
        return permute(right << 32 | left, width: 64, table: finalPermutation)
    }

    static func feistel(_ half: UInt64, _ subkey: UInt64) -> UInt64 {
        let mixed = permute(half, width: 32, table: expansion) ^ subkey
        var output: UInt64 = 0
        for box in 0..<8 {
            let six = Int(mixed >> UInt64(42 - 6 * box) & 0x3F)
            let row = (six >> 4 & 2) | (six & 1)
            let column = six >> 1 & 0xF
            output = output << 4 | UInt64(sBoxes[box][row * 16 + column])
        }
        return permute(output, width: 32, table: pBox)
    }

    static let initialPermutation: [Int] = [
        58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
        62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
        57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
        61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
    ]

    /// The inverse of the initial permutation.
    static let finalPermutation: [Int] = {
        var inverse = [Int](repeating: 0, count: 64)
        for (index, position) in initialPermutation.enumerated() {
            inverse[position - 1] = index + 1
        }
        return inverse
    }()

    /// E: each 4-bit group with its neighbours' adjacent bits, wrapping around.
    static let expansion: [Int] = (0..<8).flatMap { group in
        (-1...4).map { offset in (4 * group + offset + 32) % 32 + 1 }
    }

    static let pBox: [Int] = [
        16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10,
        2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25,
    ]

    static let pc1: [Int] = [
        57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18,
        10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
        63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
        14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4,
    ]

    static let pc2: [Int] = [
        14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10,
        23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
        41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48,
        44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32,
    ]

    static let shifts: [Int] = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1]

    static let sBoxes: [[UInt8]] = [
        [
            14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7,
            0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
            4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0,
            15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13,
        ],
        [
            15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10,
            3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
            0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15,
            13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9,
        ],
        [
            10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8,
            13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
            13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7,
            1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12,
        ],
        [
            7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15,
            13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
            10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4,
            3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14,
        ],
        [
            2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9,
            14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
            4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14,
            11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3,
        ],
        [
            12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11,
            10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
            9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6,
            4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13,
        ],
        [
            4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1,
            13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
            1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2,
            6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12,
        ],
        [
            13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7,
            1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
            7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8,
            2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11,
        ],
    ]
}
