import Crypto

/// Derives a line item's transaction identifier from the order's identity and the item's position, so the same item
/// gets the same identifier in every lookup without storing one.
public enum TransactionIdentifier {
    /// A 16-digit decimal identifier, like Apple's, from SHA-256 over the order type, order identifier and line index.
    ///
    /// Identifiers start with `9` so they never look like a real App Store transaction (which start with `1` or `2`).
    public static func derive(orderTypeIdentifier: String, orderIdentifier: String, lineItemIndex: Int) -> String {
        var hasher = SHA256()
        for part in ["ordertrack-lookup-v1", orderTypeIdentifier, orderIdentifier, String(lineItemIndex)] {
            hasher.update(data: Array(part.utf8) + [0])
        }
        let value = hasher.finalize().prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let digits = String(value % 1_000_000_000_000_000)
        return "9" + String(repeating: "0", count: 15 - digits.count) + digits
    }
}
