/// What changed between two JSON documents, as the audit trail records it: one entry per changed leaf, keyed by its
/// JSON Pointer (RFC 6901), with the value before (`from`, absent when the member was added) and after (`to`, absent
/// when it was removed).
///
/// Objects are compared member by member and arrays element by element (an element added or removed at the end is one
/// entry with the whole element); anything else that differs is one entry with both values. The JSON form is
/// `{"/fulfillments/0/trackingNumber": {"from": "1Z1", "to": "1Z2"}}`.
public struct JSONDiff: Sendable, Hashable {
    /// One changed value.
    public struct Change: Sendable, Hashable {
        /// The JSON Pointer of the value; `""` is the whole document.
        public var path: String
        /// The value before, `nil` when it was added.
        public var from: JSONValue?
        /// The value after, `nil` when it was removed.
        public var to: JSONValue?
    }

    /// The changes, sorted by path.
    public var changes: [Change]

    /// The changes from `before` (`nil`: nothing, a creation) to `after`.
    public init(from before: JSONValue?, to after: JSONValue) {
        var changes: [Change] = []
        if let before {
            Self.collect(before, after, at: "", into: &changes)
        } else {
            changes.append(Change(path: "", from: nil, to: after))
        }
        self.changes = changes.sorted { $0.path < $1.path }
    }

    /// The diff as JSON: `{pointer: {"from", "to"}}`.
    public var json: JSONValue {
        .object(
            Dictionary(
                uniqueKeysWithValues: changes.map { change in
                    var entry: [String: JSONValue] = [:]
                    entry["from"] = change.from
                    entry["to"] = change.to
                    return (change.path, .object(entry))
                }))
    }

    /// `token` escaped for a JSON Pointer (`~` → `~0`, `/` → `~1`).
    public static func pointerToken(_ token: String) -> String {
        var escaped = ""
        for character in token {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func collect(_ before: JSONValue, _ after: JSONValue, at path: String, into changes: inout [Change]) {
        guard before != after else { return }
        switch (before, after) {
        case (.object(let old), .object(let new)):
            for key in Set(old.keys).union(new.keys) {
                let child = path + "/" + pointerToken(key)
                switch (old[key], new[key]) {
                case (let was?, let now?): collect(was, now, at: child, into: &changes)
                case (let was?, nil): changes.append(Change(path: child, from: was, to: nil))
                case (nil, let now?): changes.append(Change(path: child, from: nil, to: now))
                case (nil, nil): break
                }
            }
        case (.array(let old), .array(let new)):
            for index in 0..<max(old.count, new.count) {
                let child = "\(path)/\(index)"
                let was: JSONValue? = index < old.count ? old[index] : Optional.none
                let now: JSONValue? = index < new.count ? new[index] : Optional.none
                switch (was, now) {
                case (let was?, let now?): collect(was, now, at: child, into: &changes)
                case (let was?, nil): changes.append(Change(path: child, from: was, to: nil))
                case (nil, let now?): changes.append(Change(path: child, from: nil, to: now))
                case (nil, nil): break
                }
            }
        default:
            changes.append(Change(path: path, from: before, to: after))
        }
    }
}
