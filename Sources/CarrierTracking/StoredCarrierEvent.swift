import Foundation
import OrderModel

/// The form in which a server keeps a parsed event until its worker applies it: a JSON object with the members of
/// ``CarrierEvent`` under their Swift names, absent ones left out, dates as seconds since 2001-01-01 and the URL as
/// text.
///
/// That is the shape `JSONEncoder` gave the type's synthesized `Codable`, which earlier releases stored and read: events
/// that wait in an inbox across an upgrade, and instances of either release side by side, read each other's. Written
/// by hand because Foundation's coders were 2.5 % of the webhook's CPU and a similar share of the worker's.
extension CarrierEvent {
    /// The stored form's bytes.
    public var storedForm: [UInt8] {
        var members: [String: JSONValue] = [
            "provider": .string(provider.rawValue), "idempotencyKey": .string(idempotencyKey), "trackingNumber": .string(trackingNumber),
            "status": .string(status), "occurredAt": Self.storedDate(occurredAt),
        ]
        members["carrierCode"] = carrierCode.map(JSONValue.string)
        members["carrierName"] = carrierName.map(JSONValue.string)
        members["subStatus"] = subStatus.map(JSONValue.string)
        members["trackingURL"] = trackingURL.map { .string($0.absoluteString) }
        members["statusDescription"] = statusDescription.map(JSONValue.string)
        members["orderReference"] = orderReference.map(JSONValue.string)
        members["webhookVersion"] = webhookVersion.map(JSONValue.string)
        if let estimate = estimatedDelivery {
            var window: [String: JSONValue] = ["at": Self.storedDate(estimate.at)]
            window["windowDuration"] = estimate.windowDuration.map(JSONValue.string)
            members["estimatedDelivery"] = .object(window)
        }
        return JSONValue.object(members).serialized()
    }

    /// The event a ``storedForm`` holds.
    ///
    /// - Throws: ``CarrierWebhookError`` with code ``CarrierWebhookError/Code/malformedBody`` naming the member that is
    ///   missing or of the wrong kind.
    public init(storedForm bytes: [UInt8]) throws(CarrierWebhookError) {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch { throw CarrierWebhookError(.malformedBody, "the stored event: \(error)") }
        func text(_ key: String, in value: JSONValue = root) throws(CarrierWebhookError) -> String? {
            switch value[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw CarrierWebhookError(.malformedBody, "the stored event's \(key) is not a string")
            }
        }
        func required(_ key: String) throws(CarrierWebhookError) -> String {
            guard let value = try text(key) else { throw CarrierWebhookError(.malformedBody, "the stored event has no \(key)") }
            return value
        }
        func date(_ key: String, in value: JSONValue) throws(CarrierWebhookError) -> Date {
            guard let literal = value[key]?.numberLiteral, let seconds = Double(literal) else {
                throw CarrierWebhookError(.malformedBody, "the stored event's \(key) is not a number of seconds")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        guard let provider = CarrierProvider(rawValue: try required("provider")) else {
            throw CarrierWebhookError(.malformedBody, "the stored event's provider is not one this server knows")
        }
        var estimate: EstimatedDelivery?
        if let window = root["estimatedDelivery"], window != .null {
            estimate = EstimatedDelivery(at: try date("at", in: window), windowDuration: try text("windowDuration", in: window))
        }
        self.init(
            provider: provider, idempotencyKey: try required("idempotencyKey"), trackingNumber: try required("trackingNumber"),
            carrierCode: try text("carrierCode"), carrierName: try text("carrierName"), status: try required("status"),
            subStatus: try text("subStatus"), occurredAt: try date("occurredAt", in: root), estimatedDelivery: estimate,
            trackingURL: try text("trackingURL").flatMap { URL(string: $0) }, statusDescription: try text("statusDescription"),
            orderReference: try text("orderReference"), webhookVersion: try text("webhookVersion"))
    }

    /// Seconds since 2001 as `JSONEncoder` wrote them: the shortest text that reads back as the same `Double`.
    private static func storedDate(_ date: Date) -> JSONValue {
        .number("\(date.timeIntervalSinceReferenceDate)")
    }
}
