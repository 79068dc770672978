@testable import QRCode

/// Deterministic inputs shared by the suites.
enum Inputs {
    /// An https link of exactly `length` bytes (a prefix of one for lengths under the scheme's), with a path of
    /// pseudo-random URL-safe characters so the data differs from one length to the next.
    static func url(length: Int) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var bytes = Array("https://wallet.example.com/orders/".utf8)
        var state: UInt32 = 2_463_534_242 &+ UInt32(length)
        while bytes.count < length {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            bytes.append(alphabet[Int(state % UInt32(alphabet.count))])
        }
        return Array(bytes.prefix(length))
    }

    /// The URL lengths the reference and decoding suites cover: version 1 up to well past the expected ~300 bytes.
    static let urlLengths = [1, 17, 50, 120, 300, 1000]

    /// Every byte value once.
    static let allBytes = (0...255).map(UInt8.init)

    static let levels = QRCode.ErrorCorrection.allCases

    /// The level's letter, as other encoders name it.
    static func letter(_ level: QRCode.ErrorCorrection) -> String {
        switch level {
        case .low: "L"
        case .medium: "M"
        case .quartile: "Q"
        case .high: "H"
        }
    }

    /// The symbol's rows as strings of "0" (light) and "1" (dark).
    static func rows(_ code: QRCode) -> [String] {
        (0..<code.size).map { y in String((0..<code.size).map { code.isDark(x: $0, y: y) ? "1" : "0" }) }
    }
}
