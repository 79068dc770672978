/// A declarative description of order.json. One description drives validation, normalization, unknown-key
/// preservation and the published JSON Schema, so the rules cannot drift apart.
public indirect enum SchemaNode: Sendable {
    /// A string in the given format.
    case string(StringFormat)
    /// A JSON number within optional bounds.
    case number(minimum: Double?, maximum: Double?)
    /// A whole JSON number (no fraction, no exponent) that fits in 64 bits, within optional bounds.
    case integer(minimum: Int?, maximum: Int?)
    /// `true` or `false`.
    case boolean
    /// A string from a fixed set.
    case enumeration([String])
    /// A fixed value, e.g. `orderType` is always `ecommerce`.
    case constant(JSONValue)
    /// An array of at most `maximumCount` elements; with `uniqueBy`, no two elements share that key's value.
    case array(SchemaNode, uniqueBy: String?, maximumCount: Int)
    /// An object with the given keys; keys it does not list are reported as warnings and kept.
    case object(ObjectSchema)
    /// Objects whose shape is chosen by the string in `discriminator` (fulfillments by `fulfillmentType`).
    case tagged(discriminator: String, variants: [String: ObjectSchema])
    /// A money amount: a JSON number, or a decimal string accepted on input.
    case amount

    /// Any JSON number, unbounded.
    public static let anyNumber = SchemaNode.number(minimum: nil, maximum: nil)
}

/// What a string must look like.
public enum StringFormat: Sendable, Hashable {
    /// Any text at least `minimumLength` characters long.
    case text(minimumLength: Int)
    /// A string shown to the user; with localization it may be a key into every `*.lproj/order.strings`.
    case localizable
    /// An RFC 3339 date-time, see ``DateTimeFormat/parseRFC3339(_:)``.
    case dateTime
    /// An ISO 8601 duration such as `PT30M`.
    case duration
    /// An absolute URI, see ``TextFormat/isAbsoluteURI(_:)``.
    case uri
    /// An absolute `https://` URI (`http://` too, with a warning, when
    /// ``ValidationOptions/allowInsecureWebServiceURL`` is set).
    case httpsURI
    /// An e-mail address, see ``TextFormat/isEmailAddress(_:)``.
    case email
    /// An ISO 4217 code from ``ISOCodes/currencies``.
    case currencyCode
    /// An ISO 3166-1 alpha-2 code from ``ISOCodes/countries``.
    case countryCode
    /// The name of a file inside the package.
    case fileReference(FileKind)

    /// Any text, the empty string included.
    public static let text = StringFormat.text(minimumLength: 0)
}

/// Which files a file reference may name.
public enum FileKind: String, Sendable, Hashable {
    /// A PNG or JPEG image.
    case image
    /// A PDF, PNG or JPEG document (receipts, return labels).
    case document
}

/// The keys of one JSON object.
public struct ObjectSchema: Sendable {
    /// The object's name, used for `$defs` in the JSON Schema (`CurrencyAmount`).
    public var name: String
    /// The keys, in the order the JSON Schema lists them.
    public var properties: [Property]

    /// An object schema with its name and keys.
    public init(_ name: String, _ properties: [Property]) {
        self.name = name
        self.properties = properties
    }

    /// The property for `key`, or `nil` for a key the schema does not know.
    public func property(named key: String) -> Property? {
        properties.first { $0.name == key }
    }
}

/// One key of an object.
public struct Property: Sendable {
    /// The key.
    public var name: String
    /// What the value must be.
    public var node: SchemaNode
    /// Whether the key must be present.
    public var isRequired: Bool
    /// A short description for the JSON Schema; may be empty.
    public var summary: String

    /// A property; optional unless `required`.
    public init(_ name: String, _ node: SchemaNode, required: Bool = false, _ summary: String = "") {
        self.name = name
        self.node = node
        self.isRequired = required
        self.summary = summary
    }
}
