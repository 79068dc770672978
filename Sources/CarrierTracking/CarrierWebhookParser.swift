import Crypto
import Foundation
import OrderModel
import WireFormats

/// What a verified webhook body holds.
public enum CarrierWebhookParseResult: Sendable, Hashable {
    /// A tracking event to store and apply.
    case event(CarrierEvent)
    /// A well-formed delivery that is not a tracking event (Shippo `transaction_created`, AfterShip
    /// `tracking_pending_time`): acknowledge it and do nothing. The text says what it was.
    case ignored(String)
}

/// Reads verified webhook bodies into ``CarrierEvent``s, within bounds, one reader per provider.
///
/// Run it after ``CarrierWebhookVerifier``: it trusts nothing in the body, but it is only worth running on a body the
/// provider signed. Errors name the field (`msg.checkpoints[2].checkpoint_time`) and the rule.
public enum CarrierWebhookParser {
    /// The largest body read (1 MiB): real tracking events are a few kilobytes, long checkpoint histories tens.
    public static let maximumBodySize = 1 << 20
    /// The deepest nesting read; the providers' documented shapes stay under 6.
    public static let maximumDepth = 32
    /// The longest tracking number accepted, in bytes.
    public static let maximumTrackingNumberLength = 128
    /// The longest status description kept, in characters; longer ones are cut.
    public static let maximumDescriptionLength = 256

    /// Parses `body` as `provider` sends it; `headers` supply what the body lacks (AfterShip's payload version,
    /// ShipEngine's signed time).
    ///
    /// - Throws: ``CarrierWebhookError`` with code ``CarrierWebhookError/Code/bodyTooLarge``,
    ///   ``CarrierWebhookError/Code/malformedBody``, ``CarrierWebhookError/Code/missingField`` or
    ///   ``CarrierWebhookError/Code/invalidField``.
    public static func parse(_ body: [UInt8], provider: CarrierProvider, headers: CarrierRequestHeaders) throws(CarrierWebhookError)
        -> CarrierWebhookParseResult
    {
        guard body.count <= maximumBodySize else {
            throw CarrierWebhookError(.bodyTooLarge, "the body is \(body.count) bytes; at most \(maximumBodySize) are read")
        }
        let root: JSONValue
        do { root = try JSONValue.parse(body) } catch { throw CarrierWebhookError(.malformedBody, "the body: \(error)") }
        guard depth(of: root) <= maximumDepth else {
            throw CarrierWebhookError(.malformedBody, "the body nests deeper than \(maximumDepth) levels")
        }
        let node = Node(value: root, path: "")
        guard root.objectValue != nil else { throw CarrierWebhookError(.malformedBody, "the body must be a JSON object, but is \(root.kindName)") }
        // The idempotency key of the providers whose events carry no id of their own.
        var bodyHash: String { "sha256:" + Hex.encode(SHA256.hash(data: body)) }
        switch provider {
        case .aftership: return try AfterShipReader.read(node, headers: headers)
        case .easypost: return try EasyPostReader.read(node)
        case .shippo: return try ShippoReader.read(node, bodyHash: bodyHash)
        case .shipengine: return try ShipEngineReader.read(node, headers: headers, bodyHash: bodyHash)
        case .generic: return try GenericReader.read(node)
        }
    }

    /// The nesting depth of `value` (a scalar is 0), bounded by the parser's own limit.
    static func depth(of value: JSONValue) -> Int {
        switch value {
        case .array(let elements): 1 + (elements.map(depth(of:)).max() ?? 0)
        case .object(let members): 1 + (members.values.map(depth(of:)).max() ?? 0)
        default: 0
        }
    }
}

/// A JSON value and its path, with typed accessors whose errors name the field.
struct Node {
    let value: JSONValue
    let path: String

    func child(_ key: String) -> Node? {
        guard let member = value[key], member != .null else { return nil }
        return Node(value: member, path: path.isEmpty ? key : "\(path).\(key)")
    }

    func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// A non-empty string member; `nil` when absent, null or empty.
    func string(_ key: String) throws(CarrierWebhookError) -> String? {
        guard let member = child(key) else { return nil }
        guard let text = member.value.stringValue else {
            throw CarrierWebhookError(.invalidField, "\(member.path) must be a string, but is \(member.value.kindName)")
        }
        let trimmed = Self.trimmed(text)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// `text` without leading and trailing `.whitespacesAndNewlines`. A field that begins and ends with a visible ASCII
    /// character, as almost every one does, is returned as it is: Foundation's trimming built its character set and a
    /// new string for each field (2.4 % of `bench carrier --no-worker`).
    static func trimmed(_ text: String) -> String {
        func visibleASCII(_ byte: UInt8?) -> Bool { byte.map { $0 > 0x20 && $0 < 0x7F } ?? false }
        if visibleASCII(text.utf8.first) && visibleASCII(text.utf8.last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first of `key` and `fallbacks` that is present, for fields providers spell several ways.
    func string(_ key: String, else fallbacks: String...) throws(CarrierWebhookError) -> String? {
        for name in [key] + fallbacks {
            if let text = try string(name) { return text }
        }
        return nil
    }

    func requiredString(_ key: String) throws(CarrierWebhookError) -> String {
        guard let text = try string(key) else { throw CarrierWebhookError(.missingField, "\(field(key)) is missing") }
        return text
    }

    func reference(_ key: String, else fallback: String) throws(CarrierWebhookError) -> String? {
        if let text = try reference(key) { return text }
        return try reference(fallback)
    }

    func object(_ key: String) throws(CarrierWebhookError) -> Node? {
        guard let member = child(key) else { return nil }
        guard member.value.objectValue != nil else {
            throw CarrierWebhookError(.invalidField, "\(member.path) must be an object, but is \(member.value.kindName)")
        }
        return member
    }

    func requiredObject(_ key: String) throws(CarrierWebhookError) -> Node {
        guard let member = try object(key) else { throw CarrierWebhookError(.missingField, "\(field(key)) is missing") }
        return member
    }

    func array(_ key: String) throws(CarrierWebhookError) -> [Node] {
        guard let member = child(key) else { return [] }
        guard let elements = member.value.arrayValue else {
            throw CarrierWebhookError(.invalidField, "\(member.path) must be an array, but is \(member.value.kindName)")
        }
        return elements.enumerated().map { Node(value: $0.element, path: "\(member.path)[\($0.offset)]") }
    }

    /// A date member in one of ``CarrierDate``'s formats.
    func date(_ key: String) throws(CarrierWebhookError) -> Date? {
        guard let text = try string(key) else { return nil }
        guard let date = CarrierDate.parse(text) else {
            throw CarrierWebhookError(.invalidField, "\(field(key)) must be a date-time (RFC 3339) or a date, but is \"\(text.prefix(40))\"")
        }
        return date
    }

    /// The tracking number member, bounded and without control characters.
    func trackingNumber(_ key: String) throws(CarrierWebhookError) -> String {
        let text = try requiredString(key)
        guard text.utf8.count <= CarrierWebhookParser.maximumTrackingNumberLength,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CarrierWebhookError(
                .invalidField, "\(field(key)) must be at most \(CarrierWebhookParser.maximumTrackingNumberLength) bytes without control characters")
        }
        return text
    }

    /// An order reference member: a string or an integer (some providers send numbers), at most 256 bytes.
    func reference(_ key: String) throws(CarrierWebhookError) -> String? {
        if let number = child(key)?.value.numberLiteral { return number }
        guard let text = try string(key) else { return nil }
        guard text.utf8.count <= 256 else { throw CarrierWebhookError(.invalidField, "\(field(key)) must be at most 256 bytes") }
        return text
    }
}

/// Helpers the provider readers share.
enum Reading {
    /// A URL worth showing: http or https with a host, at most 2,048 bytes; anything else is dropped, not refused
    /// (a bad link from the provider should not lose the status it came with).
    static func trackingURL(_ text: String?) -> URL? {
        guard let text, text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// `text` cut to ``CarrierWebhookParser/maximumDescriptionLength`` characters.
    static func description(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text.count > CarrierWebhookParser.maximumDescriptionLength
            ? String(text.prefix(CarrierWebhookParser.maximumDescriptionLength - 1)) + "…" : text
    }

    /// The latest of `entries` by the date at `key`: the scan the parcel is at, whatever order the provider listed
    /// them in.
    static func latest(_ entries: [Node], by key: String) throws(CarrierWebhookError) -> (node: Node, date: Date)? {
        var best: (node: Node, date: Date)?
        for entry in entries {
            guard let date = try entry.date(key) else { continue }
            if best.map({ date >= $0.date }) ?? true { best = (entry, date) }
        }
        return best
    }

    /// `snake_case_words` as a sentence: `delivery_exception` → "Delivery exception".
    static func humanized(_ code: String?) -> String? {
        guard let code, !code.isEmpty else { return nil }
        let words = code.replacingOccurrences(of: "_", with: " ").lowercased()
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// The carrier code and display name, and the tracking URL (the provider's, else the carrier's template).
    static func carrier(code: String?, trackingNumber: String, url: String?) -> (code: String?, name: String?, url: URL?) {
        let name = code.map(CarrierNames.displayName(for:))
        let link = trackingURL(url) ?? code.flatMap { CarrierNames.trackingURL(carrierCode: $0, trackingNumber: trackingNumber) }
        return (code, name, link)
    }
}
