import Foundation
import TestSupport
import Testing

@testable import QRCode

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The rendered images read back by an independent decoder, zbar's `zbarimg` (Debian package zbar-tools).
struct DecodingTests {
    private static let zbarimg = "/usr/bin/zbarimg"

    /// What `zbarimg` reads from `code` rendered as PGM, as raw bytes (`-Sbinary`: no guessing of the text encoding).
    private func decode(_ code: QRCode) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qrcode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = directory.appendingPathComponent("code.pgm")
        try Data(code.pgm(moduleSize: 3, quietZone: 4)).write(to: image)
        return try ExternalTools.run(Self.zbarimg, ["--raw", "-q", "-Sbinary", image.path])
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: zbarimg), "needs zbarimg (apt-get install zbar-tools)"),
        arguments: Inputs.levels)
    func zbarReadsBackURLsOfEveryLength(level: QRCode.ErrorCorrection) throws {
        for length in [1, 17, 50, 120, 200, 300, 1000] {
            let url = Inputs.url(length: length)
            let code = try QRCode(url, errorCorrection: level)
            #expect(try decode(code) == url, "\(length) bytes at \(level), version \(code.version)")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: zbarimg), "needs zbarimg (apt-get install zbar-tools)"))
    func zbarReadsBackEveryByteValueAndUTF8Text() throws {
        let text = Array("Commande n° 42 – 受け取り 🚚 https://wallet.example.com/o/42".utf8)
        for bytes in [Inputs.allBytes, text] {
            #expect(try decode(QRCode(bytes, errorCorrection: .quartile)) == bytes)
        }
    }

    #if canImport(FoundationXML) || os(macOS)
        /// An attribute's value, looked up by name: on Linux `attribute(forName:)` finds nothing on elements in the SVG
        /// namespace.
        private func attribute(_ name: String, of element: XMLElement?) -> String? {
            element?.attributes?.first { $0.name == name }?.stringValue
        }
    #endif

    @Test func pgmHasTheNetpbmHeaderAndOnePixelBlockPerModule() throws {
        let code = try QRCode(Inputs.url(length: 30))
        let image = code.pgm(moduleSize: 2, quietZone: 1)
        let side = (code.size + 2) * 2
        let header = Array("P5\n\(side) \(side)\n255\n".utf8)
        try #require(image.count == header.count + side * side)
        #expect(Array(image.prefix(header.count)) == header)
        let pixels = image.dropFirst(header.count)
        for y in 0..<side {
            for x in 0..<side {
                let dark = code.isDark(x: x / 2 - 1, y: y / 2 - 1)
                #expect(pixels[pixels.startIndex + y * side + x] == (dark ? 0 : 255))
            }
        }
    }

    /// The SVG parses as XML, has the documented shape, and its path covers exactly the dark modules.
    @Test func svgIsWellFormedAndItsPathDrawsExactlyTheDarkModules() throws {
        let code = try QRCode(Inputs.url(length: 120), errorCorrection: .high)
        let quietZone = 4
        let svg = code.svg(moduleSize: 5, quietZone: quietZone)
        #expect(!svg.contains("<script"))
        let side = code.size + 2 * quietZone
        let path: String
        #if canImport(FoundationXML) || os(macOS)
            let document = try XMLDocument(xmlString: svg)
            let root = try #require(document.rootElement())
            #expect(root.name == "svg")
            #expect(attribute("viewBox", of: root) == "0 0 \(side) \(side)")
            #expect(attribute("width", of: root) == "\(side * 5)")
            #expect(attribute("shape-rendering", of: root) == "crispEdges")
            let children = (root.children ?? []).compactMap { $0 as? XMLElement }
            #expect(children.map(\.name) == ["rect", "path"])
            #expect(attribute("fill", of: children.first) == "#fff")
            path = try #require(attribute("d", of: children.last))
        #else
            path = try #require(svg.split(separator: "d=\"").last?.split(separator: "\"").first).description
        #endif

        // Each run is "M<x> <y>h<width>v1h-<width>z": paint them all, then compare with the symbol and its quiet zone.
        var painted = [Bool](repeating: false, count: side * side)
        for run in path.split(separator: "z") {
            let numbers = run.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
            try #require(numbers.count == 5 && numbers[3] == 1 && numbers[4] == -numbers[2], "\(run)")
            let (x, y, width) = (numbers[0], numbers[1], numbers[2])
            try #require(width > 0 && x >= 0 && x + width <= side && (0..<side).contains(y), "\(run)")
            for column in x..<(x + width) {
                #expect(!painted[y * side + column], "module painted twice at \(column), \(y)")
                painted[y * side + column] = true
            }
        }
        for y in 0..<side {
            for x in 0..<side {
                #expect(painted[y * side + x] == code.isDark(x: x - quietZone, y: y - quietZone), "at \(x), \(y)")
            }
        }
    }
}
