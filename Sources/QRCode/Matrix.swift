/// The module grid while a symbol is built: which modules are dark, and which belong to function patterns, format or
/// version information, that codeword placement and masking leave alone.
///
/// Both grids are flat, row-major arrays (`y * size + x`), so building a symbol allocates per grid, not per module.
struct Matrix: Sendable, Equatable {
    let size: Int
    private(set) var dark: [Bool]
    private(set) var isFunction: [Bool]

    /// A matrix with the function patterns of `version` drawn, and the format and version information areas reserved
    /// (light until ``drawFormatInformation(errorCorrection:mask:)`` and ``drawVersionInformation(_:)``).
    init(version: Version) {
        size = version.size
        dark = [Bool](repeating: false, count: size * size)
        isFunction = dark
        drawTimingPatterns()
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] { drawFinderPattern(centerX: x, centerY: y) }
        drawAlignmentPatterns(centers: version.alignmentCenters)
        reserveFormatAndVersionAreas(hasVersionInformation: version.number >= 7)
    }

    /// Marks the module as part of a function pattern and colours it.
    mutating func setFunction(x: Int, y: Int, dark isDark: Bool) {
        dark[y * size + x] = isDark
        isFunction[y * size + x] = true
    }

    /// Alternating modules along row 6 and column 6, dark at even positions; the finder patterns overwrite the ends.
    private mutating func drawTimingPatterns() {
        for i in 0..<size {
            setFunction(x: 6, y: i, dark: i % 2 == 0)
            setFunction(x: i, y: 6, dark: i % 2 == 0)
        }
    }

    /// The 7 × 7 finder pattern (dark ring, light ring, dark 3 × 3 centre) and its light separator, clipped to the symbol.
    private mutating func drawFinderPattern(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx
                let y = centerY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let ring = max(abs(dx), abs(dy))
                setFunction(x: x, y: y, dark: ring != 2 && ring != 4)
            }
        }
    }

    /// 5 × 5 alignment patterns (dark ring, light ring, dark centre) at every pairing of centres except the three
    /// corners taken by the finder patterns.
    private mutating func drawAlignmentPatterns(centers: [Int]) {
        guard let first = centers.first, let last = centers.last else { return }
        for y in centers {
            for x in centers where !(x == first && y == first) && !(x == first && y == last) && !(x == last && y == first) {
                for dy in -2...2 {
                    for dx in -2...2 { setFunction(x: x + dx, y: y + dy, dark: max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
    }

    /// Keeps data out of the format information beside the finder patterns (where it crosses the timing patterns, the
    /// timing module stays), the dark module, and for version 7 and up the two version information blocks; they are
    /// drawn after the mask is chosen (§7.1, steps 6 and 7).
    private mutating func reserveFormatAndVersionAreas(hasVersionInformation: Bool) {
        for i in 0..<9 where i != 6 {
            setFunction(x: 8, y: i, dark: false)
            setFunction(x: i, y: 8, dark: false)
        }
        for i in 0..<8 {
            setFunction(x: 8, y: size - 1 - i, dark: false)
            setFunction(x: size - 1 - i, y: 8, dark: false)
        }
        guard hasVersionInformation else { return }
        for i in 0..<6 {
            for j in (size - 11)..<(size - 8) {
                setFunction(x: j, y: i, dark: false)
                setFunction(x: i, y: j, dark: false)
            }
        }
    }

    /// Places the codewords' bits, most significant first, in the two-module-wide columns from the bottom right,
    /// upward then downward in turn, skipping function modules and the vertical timing pattern (§7.7.3). Modules
    /// left over (the remainder bits) stay light.
    mutating func place(_ codewords: [UInt8]) {
        let bitCount = codewords.count * 8
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in stride(from: right, through: right - 1, by: -1) where !isFunction[y * size + x] && index < bitCount {
                    dark[y * size + x] = (codewords[index >> 3] >> (7 - (index & 7))) & 1 != 0
                    index += 1
                }
            }
            right -= 2
        }
    }

    /// Inverts the data modules where `mask` is dark; applying the same mask again undoes it.
    mutating func apply(_ mask: Mask) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && mask.inverts(x: x, y: y) { dark[y * size + x].toggle() }
        }
    }
}
