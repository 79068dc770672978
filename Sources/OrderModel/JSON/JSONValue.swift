/// A JSON document as a tree.
///
/// Numbers keep their literal text, so money amounts convert to `Decimal` exactly and unknown values round-trip
/// untouched. Objects are unordered; serialization sorts keys so output is deterministic.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// The number's literal text as it appeared in the source (always valid JSON number syntax).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; keys are unique.
    case object([String: JSONValue])

    /// The member `key` of an object; `nil` for a missing key or a value that is not an object.
    ///
    /// Setting a member of a value that is not an object does nothing; setting `nil` removes the key.
    public subscript(key: String) -> JSONValue? {
        get {
            if case .object(let members) = self { return members[key] }
            return nil
        }
        set {
            guard case .object(var members) = self else { return }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The boolean, if this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number's literal text, if this is a number.
    public var numberLiteral: String? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// JSON's name for the kind of value, used in error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A JSON number from an integer.
    public static func integer(_ value: Int) -> JSONValue {
        .number(String(value))
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A number value.
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    /// An array value.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
    /// An object value; for a repeated key the last value wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue {
    /// A copy with the value at a dotted path replaced (`"fulfillments.0.status"`: numbers index arrays);
    /// `nil` removes the key. Paths that do not exist are left alone.
    public func setting(_ dottedPath: String, to newValue: JSONValue?) -> JSONValue {
        var components = dottedPath.split(separator: ".").map(String.init)
        guard !components.isEmpty else { return newValue ?? self }
        let first = components.removeFirst()
        let rest = components.joined(separator: ".")
        if let index = Int(first), case .array(var elements) = self, elements.indices.contains(index) {
            if components.isEmpty {
                if let newValue { elements[index] = newValue } else { elements.remove(at: index) }
            } else {
                elements[index] = elements[index].setting(rest, to: newValue)
            }
            return .array(elements)
        }
        guard case .object(var members) = self else { return self }
        if components.isEmpty {
            members[first] = newValue
        } else if let member = members[first] {
            members[first] = member.setting(rest, to: newValue)
        }
        return .object(members)
    }
}
