import Foundation

/// Why an order.json could not be turned into the typed model.
public struct OrderDecodingError: Error, Sendable, CustomStringConvertible {
    /// Every problem found: schema errors and warnings, or the decoding failure.
    public var report: ValidationReport

    /// One error per line, `path: message`.
    public var description: String {
        report.errors.map(\.description).joined(separator: "\n")
    }
}

/// order.json as the device will get it: the typed ``Order`` plus every key the model does not know.
///
/// Apple adds fields over time; merchants can send them before this model knows them. The document keeps them,
/// reports them as warnings, and carries them through typed updates.
public struct OrderDocument: Sendable, Hashable {
    /// The full JSON, unknown keys included, with amounts normalized to the currency's minor units.
    public private(set) var json: JSONValue
    /// The typed order, decoded from `json`.
    public private(set) var order: Order

    /// Parses and validates order.json; fails with every schema error at once.
    ///
    /// - Throws: ``OrderDecodingError`` whose report holds every problem, warnings included.
    public init(bytes: some Collection<UInt8>, options: ValidationOptions = ValidationOptions()) throws(OrderDecodingError) {
        let report = OrderValidator.validate(orderJSON: bytes, options: options)
        guard report.isValid, let json = try? JSONValue.parse(bytes) else { throw OrderDecodingError(report: report) }
        try self.init(validJSON: json)
    }

    /// Validates and decodes a JSON tree.
    public init(json: JSONValue, options: ValidationOptions = ValidationOptions()) throws(OrderDecodingError) {
        let report = OrderValidator.validate(document: json, options: options)
        guard report.isValid else { throw OrderDecodingError(report: report) }
        try self.init(validJSON: json)
    }

    /// A document for a typed order.
    public init(order: Order) {
        self.order = order
        self.json = OrderNormalizer.normalize(order: Self.encode(order))
    }

    private init(validJSON: JSONValue) throws(OrderDecodingError) {
        let normalized = OrderNormalizer.normalize(order: validJSON)
        do {
            self.order = try OrderCoding.decoder.decode(Order.self, from: Data(normalized.serialized()))
        } catch {
            throw OrderDecodingError(report: ValidationReport(problems: [ValidationProblem(path: "", message: "cannot be decoded: \(error)")]))
        }
        self.json = normalized
    }

    /// Applies a typed change, keeping the keys the model does not know.
    public mutating func update(_ change: (inout Order) throws -> Void) rethrows {
        var updated = order
        try change(&updated)
        let encoded = OrderNormalizer.normalize(order: Self.encode(updated))
        json = OrderNormalizer.preservingUnknownKeys(from: json, in: encoded, node: .object(OrderSchema.order))
        order = updated
    }

    /// The order.json bytes (keys sorted, compact).
    public var bytes: [UInt8] { json.serialized() }

    private static func encode(_ order: Order) -> JSONValue {
        // The model only holds strings, numbers, URLs and dates, which always encode; the force is safe.
        let data = try! OrderCoding.encoder.encode(order)
        return try! JSONValue.parse(data)
    }
}

/// Coders configured for order.json: RFC 3339 dates.
public enum OrderCoding {
    /// A new encoder that writes sorted keys, unescaped slashes and RFC 3339 dates with milliseconds in UTC.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(DateTimeFormat.formatRFC3339(date))
        }
        return encoder
    }

    /// A new decoder that reads RFC 3339 dates and rejects any other date text.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = DateTimeFormat.parseRFC3339(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an RFC 3339 date-time")
            }
            return date
        }
        return decoder
    }
}
