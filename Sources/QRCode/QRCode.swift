/// A QR code symbol (ISO/IEC 18004) holding bytes in byte mode, such as an https link for a phone's camera.
///
/// The encoder picks the smallest version (1–40) that holds the bytes at the requested error correction level, and the
/// data mask with the lowest penalty score. Written here because no QR code library is available to the project's
/// package builds; it encodes byte mode only, which any URL or UTF-8 text fits.
///
/// ```swift
/// let code = try QRCode("https://example.com/orders/1234".utf8)
/// let svg = code.svg()
/// ```
public struct QRCode: Sendable, Equatable {
    /// How much of the symbol can be damaged or hidden and still be read; more recovery means fewer bytes fit.
    public enum ErrorCorrection: Sendable, Equatable, CaseIterable {
        /// Level L: recovers about 7% of the codewords.
        case low
        /// Level M: recovers about 15% of the codewords.
        case medium
        /// Level Q: recovers about 25% of the codewords.
        case quartile
        /// Level H: recovers about 30% of the codewords.
        case high
    }

    /// Why bytes could not be encoded.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// The input has `bytes` bytes but the largest symbol, version 40, holds `maximum` at the requested level.
        case tooLong(bytes: Int, maximum: Int)
    }

    /// The number of modules on each side, 21 to 177, without the quiet zone.
    public let size: Int
    /// The symbol version, 1 to 40: the smallest that holds the input; ``size`` is 17 + 4 × version.
    public let version: Int
    /// The error correction level the symbol was encoded with.
    public let errorCorrection: ErrorCorrection
    /// The data mask pattern, chosen for the lowest penalty score unless a test forced one.
    let mask: Mask
    /// Row-major, `size` × `size`: one flat array rather than nested rows, so a symbol is a single allocation.
    private let modules: [Bool]

    /// Encodes `bytes` in byte mode at the given error correction level.
    ///
    /// Text is encoded through its UTF-8 view: `try QRCode(url.utf8)`.
    ///
    /// - Throws: ``Error/tooLong(bytes:maximum:)`` when the bytes do not fit in version 40 at that level
    ///   (2953 bytes at ``ErrorCorrection/low``, 1273 at ``ErrorCorrection/high``).
    public init(_ bytes: some Collection<UInt8>, errorCorrection: ErrorCorrection = .medium) throws(QRCode.Error) {
        try self.init(bytes, errorCorrection: errorCorrection, mask: nil)
    }

    /// Encodes like ``init(_:errorCorrection:)`` with `mask`, or the best one when `nil`; tests compare every mask
    /// with a reference encoder.
    init(_ bytes: some Collection<UInt8>, errorCorrection: ErrorCorrection, mask chosen: Mask?) throws(QRCode.Error) {
        // Counted before copying, so an oversized input is refused without being buffered.
        guard let version = Version.smallest(holding: bytes.count, at: errorCorrection) else {
            throw .tooLong(bytes: bytes.count, maximum: Version.largest.byteCapacity(at: errorCorrection))
        }
        var matrix = Matrix(version: version)
        matrix.place(Codewords.message(for: Array(bytes), version: version, errorCorrection: errorCorrection))
        let mask = chosen ?? matrix.bestMask()
        matrix.apply(mask)
        matrix.drawFormatInformation(errorCorrection: errorCorrection, mask: mask)
        matrix.drawVersionInformation(version)
        self.size = version.size
        self.version = version.number
        self.errorCorrection = errorCorrection
        self.mask = mask
        self.modules = matrix.dark
    }

    /// Whether the module in column `x` and row `y`, counted from the top left, is dark.
    ///
    /// Coordinates outside `0..<size` are light, as the quiet zone around the symbol is.
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }
}
