import Foundation

/// The opaque list cursor: a versioned, base64url-encoded creation sequence.
enum OrderCursor {
    private static let prefix = "c1."

    static func encode(_ createdSequence: Int64) -> String {
        Data((prefix + String(createdSequence)).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ cursor: String) throws -> Int64 {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard
            cursor.count <= 64,
            let data = Data(base64Encoded: base64),
            let text = String(data: data, encoding: .utf8),
            text.hasPrefix(prefix),
            let sequence = Int64(text.dropFirst(prefix.count)),
            sequence >= 0
        else {
            throw OrderStoreError.invalidCursor(cursor)
        }
        return sequence
    }
}
