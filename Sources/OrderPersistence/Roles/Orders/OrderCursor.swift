import Foundation
import WireFormats

/// The opaque list cursor: a versioned, base64url-encoded creation sequence.
enum OrderCursor {
    private static let prefix = "c1."

    static func encode(_ createdSequence: Int64) -> String {
        Base64URL.encode((prefix + String(createdSequence)).utf8)
    }

    static func decode(_ cursor: String) throws -> Int64 {
        guard
            cursor.utf8.count <= 64,
            let bytes = Base64URL.decode(cursor),
            let text = String(validating: bytes, as: UTF8.self),
            text.hasPrefix(prefix),
            let sequence = Int64(text.dropFirst(prefix.count)),
            sequence >= 0
        else {
            throw OrderStoreError.invalidCursor(cursor)
        }
        return sequence
    }
}
