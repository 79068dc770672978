/// Why a patch cannot be applied.
public struct OrderPatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Dotted path of the offending key (`fulfillments[0].fulfillmentIdentifier`); `""` for the whole patch.
    public var path: String
    /// What is wrong and how to fix it.
    public var message: String

    /// An error at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

/// Partial updates of order.json, as a merchant sends them when an order changes.
///
/// Objects merge key by key and `null` removes a key (JSON Merge Patch, RFC 7396). Arrays whose elements have an
/// identifier (`fulfillments` by `fulfillmentIdentifier`, `returns` by `returnIdentifier`) merge element by element:
/// a known identifier updates that element, a new one is appended, and one patch may name each identifier only once.
/// Other arrays are replaced whole.
public enum OrderPatch {
    /// Keys that identify an order or belong to the server; a patch may repeat them unchanged but not change them.
    public static let immutableKeys: Set<String> = [
        "schemaVersion", "orderType", "orderTypeIdentifier", "orderIdentifier", "authenticationToken", "createdAt",
        "updatedAt", "webServiceURL",
    ]

    /// Applies `patch` to `order`. The result still needs validation.
    ///
    /// - Throws: ``OrderPatchError`` when the patch is not an object, changes one of ``immutableKeys``, or has an
    ///   identified array element without its identifier or with an identifier repeated.
    public static func apply(_ patch: JSONValue, to order: JSONValue) throws(OrderPatchError) -> JSONValue {
        guard let changes = patch.objectValue else {
            throw OrderPatchError(path: "", message: "the patch must be a JSON object, but is \(patch.kindName)")
        }
        for key in changes.keys.sorted() where immutableKeys.contains(key) && changes[key] != order[key] {
            throw OrderPatchError(path: key, message: "cannot be changed by a patch (\(key) is fixed when the order is created or set by the server)")
        }
        return try merge(patch, into: order, node: .object(OrderSchema.order), path: "")
    }

    private static func merge(_ patch: JSONValue, into target: JSONValue?, node: SchemaNode?, path: String) throws(OrderPatchError) -> JSONValue {
        switch (patch, node) {
        case (.object(let changes), .object(let schema)):
            return try mergeObject(changes, into: target?.objectValue ?? [:], schema: schema, path: path)
        case (.object(let changes), .tagged(let discriminator, let variants)):
            let tag = changes[discriminator]?.stringValue ?? target?[discriminator]?.stringValue
            return try mergeObject(changes, into: target?.objectValue ?? [:], schema: tag.flatMap { variants[$0] }, path: path)
        case (.object(let changes), nil):
            return try mergeObject(changes, into: target?.objectValue ?? [:], schema: nil, path: path)
        case (.array(let elements), .array(let element, let identifierKey?, _)):
            return try mergeIdentified(elements, into: target?.arrayValue ?? [], element: element, identifierKey: identifierKey, path: path)
        default:
            return patch
        }
    }

    private static func mergeObject(
        _ changes: [String: JSONValue],
        into target: [String: JSONValue],
        schema: ObjectSchema?,
        path: String
    ) throws(OrderPatchError) -> JSONValue {
        var result = target
        for (key, value) in changes {
            let memberPath = path.isEmpty ? key : "\(path).\(key)"
            if value == .null {
                result[key] = nil
            } else {
                result[key] = try merge(value, into: target[key], node: schema?.property(named: key)?.node, path: memberPath)
            }
        }
        return .object(result)
    }

    private static func mergeIdentified(
        _ elements: [JSONValue],
        into target: [JSONValue],
        element: SchemaNode,
        identifierKey: String,
        path: String
    ) throws(OrderPatchError) -> JSONValue {
        var result = target
        // Where each identifier sits in the target, so every patch element finds its match in constant time.
        var positions: [String: Int] = [:]
        for (position, existing) in target.enumerated() {
            if let identifier = existing[identifierKey]?.stringValue, positions[identifier] == nil { positions[identifier] = position }
        }
        var seen: [String: Int] = [:]
        for (position, change) in elements.enumerated() {
            let elementPath = "\(path)[\(position)]"
            guard change.objectValue != nil, let identifier = change[identifierKey]?.stringValue else {
                throw OrderPatchError(
                    path: elementPath,
                    message: "each element must be an object with \(identifierKey), which selects the element to update or names a new one")
            }
            if let first = seen[identifier] {
                throw OrderPatchError(
                    path: "\(elementPath).\(identifierKey)",
                    message: "\"\(identifier)\" appears more than once in this patch (first at \(path)[\(first)]); send each \(identifierKey) once")
            }
            seen[identifier] = position
            if let index = positions[identifier] {
                result[index] = try merge(change, into: result[index], node: element, path: elementPath)
            } else {
                result.append(try merge(change, into: nil, node: element, path: elementPath))
            }
        }
        return .array(result)
    }
}
