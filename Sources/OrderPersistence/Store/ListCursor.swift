import Foundation
import WireFormats

/// An opaque list cursor: a versioned, base64url-encoded sequence, its prefix naming the list that issued it, so one
/// list's cursor is refused by another.
struct ListCursor: Sendable {
    private let prefix: String

    /// Orders, by creation sequence.
    static let orders = ListCursor(prefix: "c1.")
    /// A merchant's events, by event sequence.
    static let events = ListCursor(prefix: "e1.")
    /// An endpoint's webhook deliveries, by their number in its log.
    static let webhookDeliveries = ListCursor(prefix: "w1.")

    func encode(_ sequence: Int64) -> String {
        Base64URL.encode((prefix + String(sequence)).utf8)
    }

    func decode(_ cursor: String) throws -> Int64 {
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
