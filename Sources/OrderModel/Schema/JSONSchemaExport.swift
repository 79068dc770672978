extension OrderSchema {
    /// order.json as a JSON Schema (draft 2020-12), generated from the same description the validator uses.
    /// Rules that JSON Schema cannot express (files present in the package, `updatedAt >= createdAt`,
    /// localization consistency) are checked only by ``OrderValidator``.
    public static func jsonSchema() -> JSONValue {
        var definitions: [String: JSONValue] = [:]
        let root = JSONSchemaBuilder.object(order, definitions: &definitions)
        var document = root.objectValue ?? [:]
        document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        document["$id"] = "https://ordertrack.dev/schemas/order.json"
        document["title"] = "Apple Wallet order.json (schemaVersion 1 or 2)"
        // Under schemaVersion 1, payment.status is required as Apple's reference has it; 2 lets it go.
        document["if"] = ["properties": ["schemaVersion": ["const": 1]], "required": ["schemaVersion"]]
        document["then"] = ["properties": ["payment": ["required": ["status"]]]]
        definitions.removeValue(forKey: order.name)
        document["$defs"] = .object(definitions)
        return .object(document)
    }
}

private enum JSONSchemaBuilder {
    static func object(_ schema: ObjectSchema, definitions: inout [String: JSONValue]) -> JSONValue {
        var properties: [String: JSONValue] = [:]
        for property in schema.properties {
            var node = self.node(property.node, definitions: &definitions)
            if !property.summary.isEmpty, var members = node.objectValue {
                members["description"] = .string(property.summary)
                node = .object(members)
            }
            properties[property.name] = node
        }
        let required = schema.properties.filter(\.isRequired).map { JSONValue.string($0.name) }
        let body: JSONValue = ["type": "object", "properties": .object(properties), "required": .array(required)]
        definitions[schema.name] = body
        return body
    }

    static func reference(_ schema: ObjectSchema, definitions: inout [String: JSONValue]) -> JSONValue {
        if definitions[schema.name] == nil { _ = object(schema, definitions: &definitions) }
        return ["$ref": .string("#/$defs/\(schema.name)")]
    }

    static func node(_ node: SchemaNode, definitions: inout [String: JSONValue]) -> JSONValue {
        switch node {
        case .string(let format): string(format)
        case .number(let minimum, let maximum):
            .object(["type": "number", "minimum": minimum.map(bound), "maximum": maximum.map(bound)].compactMapValues { $0 })
        case .integer(let minimum, let maximum):
            .object(["type": "integer", "minimum": minimum.map { .integer($0) }, "maximum": maximum.map { .integer($0) }].compactMapValues { $0 })
        case .boolean: ["type": "boolean"]
        case .enumeration(let values): ["type": "string", "enum": .array(values.map(JSONValue.string))]
        // A type beside const, although const alone says it, so that code generators (swift-openapi-generator) type the
        // property instead of leaving it untyped.
        case .constant(let value): value.stringValue == nil ? ["const": value] : ["type": "string", "const": value]
        case .array(let element, _, let maximumCount):
            ["type": "array", "items": self.node(element, definitions: &definitions), "maxItems": .integer(maximumCount)]
        case .object(let schema): reference(schema, definitions: &definitions)
        case .tagged(_, let variants):
            ["oneOf": .array(variants.keys.sorted().map { reference(variants[$0]!, definitions: &definitions) })]
        case .amount:
            ["oneOf": [["type": "number"], ["type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$", "maxLength": .integer(Amount.maximumLength)]]]
        }
    }

    static func bound(_ value: Double) -> JSONValue { .number(SchemaWalker.format(value)) }

    static func string(_ format: StringFormat) -> JSONValue {
        switch format {
        case .text(let minimumLength): minimumLength > 0 ? ["type": "string", "minLength": .integer(minimumLength)] : ["type": "string"]
        case .localizable: ["type": "string", "minLength": 1]
        case .dateTime: ["type": "string", "format": "date-time"]
        case .duration: ["type": "string", "format": "duration"]
        case .uri: ["type": "string", "format": "uri"]
        case .httpsURI: ["type": "string", "format": "uri", "pattern": "^https://"]
        case .email: ["type": "string", "format": "email"]
        case .currencyCode: ["type": "string", "pattern": "^[A-Z]{3}$"]
        case .countryCode: ["type": "string", "pattern": "^[A-Z]{2}$"]
        case .fileReference: ["type": "string", "minLength": 1, "description": "name of a file in the order package"]
        }
    }
}
