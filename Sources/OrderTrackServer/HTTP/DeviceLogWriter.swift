import Logging
import OrderModel

/// Writes what devices post to `POST /wallet/v1/log` to the server log, so that no client can forge log lines or fill
/// the disk: control characters (newlines, ESC, …) are escaped, each entry and each request is bounded, and every
/// client address has a byte budget (a token bucket) past which its entries are dropped and only counted.
struct DeviceLogWriter: Sendable {
    /// Log entries kept from one request, and characters kept of each.
    static let maximumEntries = 50
    static let maximumEntryLength = 2000

    /// Bytes each client address may have logged; `nil`: no budget.
    let budget: TokenBuckets?

    /// Logs `entries` (strings, or any JSON as its text) from `address`: at most ``maximumEntries``, each escaped and
    /// cut to ``maximumEntryLength``, while the address's budget lasts; one line counts what was left out.
    func write(_ entries: [JSONValue], from address: String, to logger: Logger) {
        var dropped = max(0, entries.count - Self.maximumEntries)
        for entry in entries.prefix(Self.maximumEntries) {
            let text = Self.escaped(String((entry.stringValue ?? entry.serializedString()).prefix(Self.maximumEntryLength)))
            if let budget, budget.take(address, cost: Double(text.utf8.count)) != nil {
                dropped += 1
                continue
            }
            logger.notice("device log", metadata: ["message": .string(text), "client": .string(address)])
        }
        if dropped > 0 {
            logger.notice("device log entries dropped", metadata: ["dropped": .stringConvertible(dropped), "client": .string(address)])
        }
    }

    /// `text` with every control character (C0, DEL, C1) and line or paragraph separator written as a visible escape
    /// (`\n`, `\u{1B}`), so an entry is always one line that no terminal interprets.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            case _ where scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}":
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
