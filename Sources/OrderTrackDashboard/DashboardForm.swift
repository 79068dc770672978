import Foundation

/// The fields of an `application/x-www-form-urlencoded` body, as the dashboard's forms post them. A field given twice
/// keeps its first value; malformed escapes read as absent fields.
struct DashboardForm: Sendable {
    private var fields: [String: String] = [:]

    init(_ body: String) {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : ""), fields[name] == nil else { continue }
            fields[name] = value
        }
    }

    subscript(name: String) -> String? { fields[name] }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
