/// A declarative description of order.json. One description drives validation, normalization, unknown-key
/// preservation and the published JSON Schema, so the rules cannot drift apart.
public indirect enum SchemaNode: Sendable {
    case string(StringFormat)
    /// A JSON number within optional bounds.
    case number(minimum: Double?, maximum: Double?)
    case boolean
    /// A string from a fixed set.
    case enumeration([String])
    /// A fixed value, e.g. `orderType` is always `ecommerce`.
    case constant(JSONValue)
    /// An array of at most `maximumCount` elements; with `uniqueBy`, no two elements share that key's value.
    case array(SchemaNode, uniqueBy: String?, maximumCount: Int)
    case object(ObjectSchema)
    /// Objects whose shape is chosen by the string in `discriminator` (fulfillments by `fulfillmentType`).
    case tagged(discriminator: String, variants: [String: ObjectSchema])
    /// A money amount: a JSON number, or a decimal string accepted on input.
    case amount

    public static let anyNumber = SchemaNode.number(minimum: nil, maximum: nil)
}

/// What a string must look like.
public enum StringFormat: Sendable, Hashable {
    case text(minimumLength: Int)
    /// A string shown to the user; with localization it may be a key into every `*.lproj/order.strings`.
    case localizable
    case dateTime
    case duration
    case uri
    case httpsURI
    case email
    case currencyCode
    case countryCode
    /// The name of a file inside the package.
    case fileReference(FileKind)

    public static let text = StringFormat.text(minimumLength: 0)
}

/// Which files a file reference may name.
public enum FileKind: String, Sendable, Hashable {
    case image
    case document
}

/// The keys of one JSON object.
public struct ObjectSchema: Sendable {
    public var name: String
    public var properties: [Property]

    public init(_ name: String, _ properties: [Property]) {
        self.name = name
        self.properties = properties
    }

    public func property(named key: String) -> Property? {
        properties.first { $0.name == key }
    }
}

/// One key of an object.
public struct Property: Sendable {
    public var name: String
    public var node: SchemaNode
    public var isRequired: Bool
    public var summary: String

    public init(_ name: String, _ node: SchemaNode, required: Bool = false, _ summary: String = "") {
        self.name = name
        self.node = node
        self.isRequired = required
        self.summary = summary
    }
}
