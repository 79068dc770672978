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
            if before != after { Self.collect(before, after, at: "", into: &changes) }
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

    /// Appends the changes from `before` to `after`, which differ. Each member is compared once, by its parent, and
    /// only an unequal one is descended into and given a path: comparing each value again as a whole before its
    /// members, and spelling every sibling's path, made the audit note of an update 1 % of the soak's server.
    private static func collect(_ before: JSONValue, _ after: JSONValue, at path: String, into changes: inout [Change]) {
        switch (before, after) {
        case (.object(let old), .object(let new)):
            for key in Set(old.keys).union(new.keys) {
                collect(old[key], new[key], at: { path + "/" + pointerToken(key) }, into: &changes)
            }
        case (.array(let old), .array(let new)):
            for index in 0..<max(old.count, new.count) {
                // `Optional.none`, not `nil`: JSONValue takes a nil literal as JSON's null.
                let was: JSONValue? = index < old.count ? old[index] : Optional.none
                let now: JSONValue? = index < new.count ? new[index] : Optional.none
                collect(was, now, at: { "\(path)/\(index)" }, into: &changes)
            }
        default:
            changes.append(Change(path: path, from: before, to: after))
        }
    }

    /// A member or element that may be absent on either side; its path is spelled only when it changed.
    private static func collect(_ was: JSONValue?, _ now: JSONValue?, at path: () -> String, into changes: inout [Change]) {
        guard was != now else { return }
        if let was, let now {
            collect(was, now, at: path(), into: &changes)
        } else {
            changes.append(Change(path: path(), from: was, to: now))
        }
    }
}
