import Foundation

enum Fixtures {
    static func orderJSON(
        orderType: String = "order.com.example.test", identifier: String = "ORD-1001", logo: String = "logo.png"
    ) -> [UInt8] {
        Array(
            """
            {"schemaVersion":1,"orderTypeIdentifier":"\(orderType)","orderIdentifier":"\(identifier)",\
            "orderType":"ecommerce","orderNumber":"1001","createdAt":"2025-01-02T03:04:05Z",\
            "updatedAt":"2025-01-02T03:04:05Z","status":"open","authenticationToken":"c2VjcmV0LXRva2VuLTEyMzQ1Ng",\
            "orderManagementURL":"https://example.com/orders/1001","webServiceURL":"https://orders.example.com/wallet",\
            "lineItems":[{"title":"Mug","quantity":1,"image":"banner.jpg"}],\
            "merchant":{"merchantIdentifier":"merchant.com.example","displayName":"merchant.name",\
            "url":"https://example.com","logo":"\(logo)"}}
            """.utf8)
    }

    /// PNG signature plus deterministic filler.
    static func png(size: Int, seed: UInt8 = 1) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var state = UInt32(seed) &* 2_654_435_761
        while bytes.count < size {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: state >> 24))
        }
        return bytes
    }

    /// JPEG start-of-image marker plus deterministic filler.
    static func jpeg(size: Int, seed: UInt8) -> [UInt8] {
        [0xFF, 0xD8, 0xFF] + png(size: size - 3, seed: seed).dropFirst(8)
    }

    static let assets: [String: [UInt8]] = [
        "logo.png": png(size: 600),
        "logo@2x.png": png(size: 1200, seed: 2),
        "en.lproj/order.strings": Array("\"merchant.name\" = \"Example Store\";\n".utf8),
        "fr.lproj/order.strings": Array("\"merchant.name\" = \"Boutique Exemple\";\n".utf8),
        "en.lproj/banner.jpg": jpeg(size: 300, seed: 4),
        "fr.lproj/banner.jpg": jpeg(size: 300, seed: 3),
    ]

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `files` (relative paths) under `directory`.
    static func write(_ files: [String: [UInt8]], under directory: URL) throws {
        for (path, bytes) in files {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
    }
}
