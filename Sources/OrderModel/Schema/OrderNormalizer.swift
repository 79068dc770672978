/// Schema-driven transformations of order.json trees.
public enum OrderNormalizer {
    /// ``normalize(_:node:)`` of a whole order: one walk of the document along the order's schema.
    public static func normalize(order: JSONValue) -> JSONValue {
        WorkTally.count(.schemaWalk)
        return normalize(order, node: .object(OrderSchema.order))
    }

    /// Writes every money amount as a JSON number with its currency's minor units (`"12.5"` USD → `12.50`), and a
    /// number written as a decimal string (`"quantity": "2"`) as the number. Values that are neither are left alone
    /// for the validator to report.
    public static func normalize(_ value: JSONValue, node: SchemaNode) -> JSONValue {
        switch node {
        case .number:
            return value.stringValue.flatMap(SchemaWalker.numberInString).map(JSONValue.number) ?? value
        case .object(let schema):
            guard var members = value.objectValue else { return value }
            for (key, member) in members {
                guard let property = schema.property(named: key) else { continue }
                members[key] = normalize(member, node: property.node)
            }
            if schema.name == OrderSchema.currencyAmount.name, let currency = members["currency"]?.stringValue,
                let text = members["amount"].flatMap(Amount.literal(of:)), let normalized = Amount.normalized(text, currency: currency)
            {
                members["amount"] = .number(normalized)
            }
            return .object(members)
        case .array(let element, _, _):
            guard let elements = value.arrayValue else { return value }
            return .array(elements.map { normalize($0, node: element) })
        case .tagged(let discriminator, let variants):
            guard let variant = value[discriminator]?.stringValue.flatMap({ variants[$0] }) else { return value }
            return normalize(value, node: .object(variant))
        default:
            return value
        }
    }

    /// `updated` plus every key of `original` that the schema does not know, at every depth. Array elements are
    /// matched by their identifier key where the schema names one (fulfillments, returns), else by position.
    public static func preservingUnknownKeys(from original: JSONValue, in updated: JSONValue, node: SchemaNode) -> JSONValue {
        switch node {
        case .object(let schema):
            guard let old = original.objectValue, var new = updated.objectValue else { return updated }
            for (key, value) in old {
                if let property = schema.property(named: key) {
                    if let newValue = new[key] {
                        new[key] = preservingUnknownKeys(from: value, in: newValue, node: property.node)
                    }
                } else if new[key] == nil {
                    new[key] = value
                }
            }
            return .object(new)
        case .array(let element, let identifierKey, _):
            guard let old = original.arrayValue, let new = updated.arrayValue else { return updated }
            // The first old element with each identifier, found once instead of searched for every new element.
            var oldByIdentifier: [JSONValue: JSONValue] = [:]
            if let identifierKey {
                for item in old {
                    if let identifier = item[identifierKey], oldByIdentifier[identifier] == nil { oldByIdentifier[identifier] = item }
                }
            }
            return .array(
                new.enumerated().map { position, item in
                    let match: JSONValue?
                    if let identifierKey, let identifier = item[identifierKey] {
                        match = oldByIdentifier[identifier]
                    } else {
                        match = position < old.count ? old[position] : nil
                    }
                    return match.map { preservingUnknownKeys(from: $0, in: item, node: element) } ?? item
                })
        case .tagged(let discriminator, let variants):
            guard let variant = updated[discriminator]?.stringValue.flatMap({ variants[$0] }),
                original[discriminator] == updated[discriminator]
            else { return updated }
            return preservingUnknownKeys(from: original, in: updated, node: .object(variant))
        default:
            return updated
        }
    }
}
