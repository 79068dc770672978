/// A tracking aggregator whose webhooks OrderTrack receives, or OrderTrack's own generic format.
public enum CarrierProvider: String, Sendable, Hashable, CaseIterable, Codable {
    /// AfterShip Tracking (`tracking_update` and `edd_revise` webhooks).
    case aftership
    /// EasyPost (`tracker.created` and `tracker.updated` events).
    case easypost
    /// Shippo (`track_updated` webhooks).
    case shippo
    /// ShipEngine and the ShipStation API (`track` webhooks).
    case shipengine
    /// OrderTrack's own signed JSON event, for carriers and logistics providers without an aggregator.
    case generic

    /// The name the audit trail gives changes this provider made: `carrier:aftership`.
    public var auditActor: String { "carrier:\(rawValue)" }
}

/// Why a carrier webhook was refused: a signature that does not verify, or a body that is not a tracking event.
///
/// ``code`` tells the server how to answer (``isAuthenticationFailure``: 401, otherwise 400); ``message`` names the
/// header or field and the rule it broke, for the log and the dashboard, never for the caller to probe secrets with.
public struct CarrierWebhookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// No secret or key is configured: verification fails closed.
        case notConfigured
        /// A signature header is missing or appears more than once.
        case missingSignature
        /// A signature header does not have the documented syntax.
        case malformedSignature
        /// The signed timestamp is outside the accepted window.
        case staleTimestamp
        /// The signature does not match the body.
        case signatureMismatch
        /// The signature names a key the key set does not hold, or the key set could not be had.
        case unknownKey
        /// A JSON Web Key Set that cannot be used.
        case malformedKeySet
        /// The body is larger than ``CarrierWebhookParser/maximumBodySize``.
        case bodyTooLarge
        /// The body is not JSON, or is nested or sized beyond the bounds.
        case malformedBody
        /// A field the event needs is absent.
        case missingField
        /// A field has the wrong type or an unusable value.
        case invalidField
        /// A per-connection status map names a Wallet status that does not exist.
        case invalidStatusMap
    }

    /// What kind of failure.
    public var code: Code
    /// The header or field, and the rule it broke.
    public var message: String

    /// An error of kind `code`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Whether the request failed authentication (answer 401 and change nothing) rather than being malformed (400).
    public var isAuthenticationFailure: Bool {
        switch code {
        case .notConfigured, .missingSignature, .malformedSignature, .staleTimestamp, .signatureMismatch, .unknownKey, .malformedKeySet: true
        case .bodyTooLarge, .malformedBody, .missingField, .invalidField, .invalidStatusMap: false
        }
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// Request headers as the webhook arrived, looked up case-insensitively.
///
/// A signature header sent twice is ambiguous (which one did the provider mean?), so ``single(_:)`` refuses it.
public struct CarrierRequestHeaders: Sendable, Hashable {
    private var values: [String: [String]] = [:]

    /// Headers from name/value pairs in arrival order; names are case-insensitive.
    public init(_ fields: [(name: String, value: String)]) {
        for field in fields { values[field.name.lowercased(), default: []].append(field.value) }
    }

    /// Headers from a dictionary, for tests and callers whose HTTP layer already merged repeats.
    public init(_ fields: [String: String]) {
        self.init(fields.map { (name: $0.key, value: $0.value) })
    }

    /// The value of header `name` when it appears exactly once, `nil` when it is absent.
    ///
    /// - Throws: ``CarrierWebhookError/Code/missingSignature`` when it appears more than once.
    public func single(_ name: String) throws(CarrierWebhookError) -> String? {
        guard let found = values[name.lowercased()] else { return nil }
        guard found.count == 1 else { throw CarrierWebhookError(.missingSignature, "header \(name) appears \(found.count) times; send it once") }
        return found[0]
    }

    /// The first value of header `name`, for informational headers such as `As-Webhook-Version`.
    public func first(_ name: String) -> String? {
        values[name.lowercased()]?.first
    }
}
