extension QRCode {
    /// The symbol as a standalone SVG document: a white background and one black `<path>` of horizontal runs of dark
    /// modules, in a `viewBox` of one unit per module so it scales without blurring.
    ///
    /// - Parameters:
    ///   - moduleSize: The `width` and `height` of a module in pixels (at least 1).
    ///   - quietZone: The light margin around the symbol in modules (at least 0); readers expect 4.
    public func svg(moduleSize: Int = 4, quietZone: Int = 4) -> String {
        let quietZone = max(0, quietZone)
        let side = size + 2 * quietZone
        let pixels = side * max(1, moduleSize)
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while isDark(x: x, y: y) { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixels)" height="\(pixels)" viewBox="0 0 \(side) \(side)" \
            shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path fill="#000" d="\(path)"/></svg>

            """
    }

    /// The symbol as a binary greyscale netpbm image (P5): black modules (0) on white (255), with the quiet zone.
    ///
    /// - Parameters:
    ///   - moduleSize: The width and height of a module in pixels (at least 1).
    ///   - quietZone: The light margin around the symbol in modules (at least 0); readers expect 4.
    public func pgm(moduleSize: Int = 4, quietZone: Int = 4) -> [UInt8] {
        let moduleSize = max(1, moduleSize)
        let quietZone = max(0, quietZone)
        let pixels = (size + 2 * quietZone) * moduleSize
        var image = Array("P5\n\(pixels) \(pixels)\n255\n".utf8)
        image.reserveCapacity(image.count + pixels * pixels)
        var row = [UInt8](repeating: 255, count: pixels)
        for y in -quietZone..<(size + quietZone) {
            for x in -quietZone..<(size + quietZone) {
                let value: UInt8 = isDark(x: x, y: y) ? 0 : 255
                let start = (x + quietZone) * moduleSize
                row.replaceSubrange(start..<(start + moduleSize), with: repeatElement(value, count: moduleSize))
            }
            for _ in 0..<moduleSize { image += row }
        }
        return image
    }
}
