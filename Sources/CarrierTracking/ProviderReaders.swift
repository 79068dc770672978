import Foundation
import OrderModel

/// AfterShip Tracking webhooks: `{event, event_id, is_tracking_first_tag, msg: {tracking_number, slug, tag, subtag,
/// subtag_message, order_number, checkpoints[], latest_estimated_delivery, aftership_estimated_delivery_date,
/// courier_tracking_link, …}, ts}` (https://www.aftership.com/docs/tracking/webhook/webhook-specifications).
enum AfterShipReader {
    /// The events that carry a tracking record; `tracking_pending_time` and others are acknowledged and ignored.
    static let trackingEvents: Set<String> = ["tracking_update", "edd_revise"]

    static func read(_ root: Node, headers: CarrierRequestHeaders) throws(CarrierWebhookError) -> CarrierWebhookParseResult {
        let kind = try root.requiredString("event")
        guard trackingEvents.contains(kind) else { return .ignored("AfterShip event \"\(kind.prefix(64))\" is not a tracking update") }
        let key = try root.requiredString("event_id")
        let msg = try root.requiredObject("msg")
        let trackingNumber = try msg.trackingNumber("tracking_number")
        let latest = try Reading.latest(try msg.array("checkpoints"), by: "checkpoint_time")
        let occurredAt: Date
        if let latest {
            occurredAt = latest.date
        } else if let ts = root.child("ts")?.value.numberLiteral, let seconds = Int64(ts) {
            occurredAt = Date(timeIntervalSince1970: TimeInterval(seconds))
        } else if let updated = try msg.date("updated_at") {
            occurredAt = updated
        } else {
            throw CarrierWebhookError(.missingField, "msg.checkpoints, ts and msg.updated_at are all missing: the event has no time")
        }
        let carrier = Reading.carrier(code: try msg.string("slug"), trackingNumber: trackingNumber, url: try msg.string("courier_tracking_link"))
        return .event(
            CarrierEvent(
                provider: .aftership, idempotencyKey: key, trackingNumber: trackingNumber, carrierCode: carrier.code, carrierName: carrier.name,
                // An edd_revise may come without a tag: it then changes the estimate only.
                status: try msg.string("tag") ?? "", subStatus: try msg.string("subtag"), occurredAt: occurredAt,
                estimatedDelivery: try estimate(msg), trackingURL: carrier.url,
                statusDescription: Reading.description(try msg.string("subtag_message")),
                orderReference: try msg.reference("order_number", else: "order_id"),
                webhookVersion: headers.first("As-Webhook-Version").map { String($0.prefix(32)) }))
    }

    /// The newest estimate AfterShip gives: `latest_estimated_delivery` (a time or a window), else its own prediction
    /// `aftership_estimated_delivery_date`, else the carrier's `expected_delivery`.
    static func estimate(_ msg: Node) throws(CarrierWebhookError) -> EstimatedDelivery? {
        if let latest = try msg.object("latest_estimated_delivery") {
            if let start = try latest.date("datetime_min"), let end = try latest.date("datetime_max"),
                let window = EstimatedDelivery(start: start, end: end)
            {
                return window
            }
            if let at = try latest.date("datetime") { return EstimatedDelivery(at: at) }
        }
        if let predicted = try msg.object("aftership_estimated_delivery_date") {
            if let start = try predicted.date("estimated_delivery_date_min"), let end = try predicted.date("estimated_delivery_date_max"),
                let window = EstimatedDelivery(start: start, end: end)
            {
                return window
            }
            if let at = try predicted.date("estimated_delivery_date") { return EstimatedDelivery(at: at) }
        }
        return try msg.date("expected_delivery").map { EstimatedDelivery(at: $0) }
    }
}

/// EasyPost `Event` objects whose `result` is a Tracker (https://docs.easypost.com/docs/trackers,
/// https://docs.easypost.com/docs/events).
enum EasyPostReader {
    static let trackerEvents: Set<String> = ["tracker.created", "tracker.updated"]

    static func read(_ root: Node) throws(CarrierWebhookError) -> CarrierWebhookParseResult {
        let kind = try root.requiredString("description")
        guard trackerEvents.contains(kind) else { return .ignored("EasyPost event \"\(kind.prefix(64))\" is not a tracker event") }
        let key = try root.requiredString("id")
        let tracker = try root.requiredObject("result")
        let trackingNumber = try tracker.trackingNumber("tracking_code")
        let status = try tracker.requiredString("status")
        let detail = try tracker.string("status_detail")
        let scanned = try Reading.latest(try tracker.array("tracking_details"), by: "datetime")?.date
        let updated = try tracker.date("updated_at")
        let created = try root.date("created_at")
        guard let occurredAt = scanned ?? updated ?? created else {
            throw CarrierWebhookError(
                .missingField, "result.tracking_details, result.updated_at and created_at are all missing: the event has no time")
        }
        let carrier = Reading.carrier(code: try tracker.string("carrier"), trackingNumber: trackingNumber, url: try tracker.string("public_url"))
        return .event(
            CarrierEvent(
                provider: .easypost, idempotencyKey: key, trackingNumber: trackingNumber, carrierCode: carrier.code, carrierName: carrier.name,
                status: status, subStatus: detail, occurredAt: occurredAt,
                estimatedDelivery: try tracker.date("est_delivery_date").map { EstimatedDelivery(at: $0) }, trackingURL: carrier.url,
                statusDescription: Reading.description(Reading.humanized(detail)), orderReference: try tracker.reference("shipment_id")))
    }
}

/// Shippo `track_updated` webhooks: `{event, test, data: Track}` where the Track has `tracking_status {status,
/// substatus {code, text, action_required}, status_details, status_date}`, `tracking_history[]`, `eta`, `metadata`
/// (https://docs.goshippo.com/docs/tracking/webhooks).
enum ShippoReader {
    static func read(_ root: Node, bodyHash: String) throws(CarrierWebhookError) -> CarrierWebhookParseResult {
        let kind = try root.requiredString("event")
        guard kind == "track_updated" else { return .ignored("Shippo event \"\(kind.prefix(64))\" is not a tracking update") }
        let track = try root.requiredObject("data")
        let trackingNumber = try track.trackingNumber("tracking_number")
        let current = try track.requiredObject("tracking_status")
        let status = try current.requiredString("status")
        let substatus = try current.object("substatus")
        // The current status's own date, or the newest history entry when that is later (histories arrive whole).
        let history = try Reading.latest(try track.array("tracking_history"), by: "status_date")?.date
        guard let occurredAt = [try current.date("status_date"), history].compactMap({ $0 }).max() else {
            throw CarrierWebhookError(.missingField, "data.tracking_status.status_date is missing: the event has no time")
        }
        let substatusText = try substatus?.string("text")
        let details = try current.string("status_details")
        let explanation = substatusText ?? details
        let carrier = Reading.carrier(
            code: try track.string("carrier"), trackingNumber: trackingNumber, url: try track.string("tracking_url_provider"))
        return .event(
            CarrierEvent(
                // Shippo sends no event identifier and says tracking webhooks are not idempotent: the body's hash is.
                provider: .shippo, idempotencyKey: bodyHash, trackingNumber: trackingNumber, carrierCode: carrier.code, carrierName: carrier.name,
                status: status, subStatus: try substatus?.string("code"), occurredAt: occurredAt,
                estimatedDelivery: try track.date("eta").map { EstimatedDelivery(at: $0) }, trackingURL: carrier.url,
                statusDescription: Reading.description(explanation),
                orderReference: try track.reference("metadata")))
    }
}

/// ShipEngine `track` webhooks (`resource_type: API_TRACK`): `{resource_url, resource_type, data: {tracking_number,
/// status_code, status_detail_code, status_description, carrier_status_description, estimated_delivery_date,
/// exception_description, events[] {occurred_at, …}}}`
/// (https://www.shipengine.com/docs/tracking/webhooks/, https://docs.shipstation.com/apis/docs/guides/webhooks-overview.md).
enum ShipEngineReader {
    static func read(_ root: Node, headers: CarrierRequestHeaders, bodyHash: String) throws(CarrierWebhookError) -> CarrierWebhookParseResult {
        let kind = try root.requiredString("resource_type")
        guard kind == "API_TRACK" else { return .ignored("ShipEngine resource_type \"\(kind.prefix(64))\" is not a tracking event") }
        let data = try root.requiredObject("data")
        let trackingNumber = try data.trackingNumber("tracking_number")
        let status = try data.requiredString("status_code")
        let signedAt = headers.first(CarrierWebhookVerifier.Header.shipEngineTimestamp).flatMap {
            CarrierDate.parseTimestamp(String($0.trimmingSpaces()))
        }
        guard let occurredAt = try Reading.latest(try data.array("events"), by: "occurred_at")?.date ?? signedAt else {
            throw CarrierWebhookError(.missingField, "data.events has no occurred_at and the timestamp header is missing: the event has no time")
        }
        // The carrier is in data.carrier_code when present, else in the resource URL's query (carrier_code=).
        let fromURL = (try root.string("resource_url")).flatMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "carrier_code" }?.value }
        let carrier = Reading.carrier(
            code: try data.string("carrier_code") ?? fromURL, trackingNumber: trackingNumber, url: try data.string("tracking_url"))
        let description = try data.string("exception_description", else: "status_detail_description", "status_description")
        return .event(
            CarrierEvent(
                // ShipEngine documents no event identifier: the body's hash is the key.
                provider: .shipengine, idempotencyKey: bodyHash, trackingNumber: trackingNumber, carrierCode: carrier.code, carrierName: carrier.name,
                status: status, subStatus: try data.string("status_detail_code"), occurredAt: occurredAt,
                estimatedDelivery: try data.date("estimated_delivery_date").map { EstimatedDelivery(at: $0) }, trackingURL: carrier.url,
                statusDescription: Reading.description(description)))
    }
}

/// OrderTrack's generic event: `{id, trackingNumber, carrier, status, occurredAt, estimatedDeliveryAt?,
/// estimatedDeliveryWindowDuration?, trackingURL?, statusDescription?, orderIdentifier?}`. `status` is a Wallet
/// shipping status unless the connection maps the sender's own words.
enum GenericReader {
    static func read(_ root: Node) throws(CarrierWebhookError) -> CarrierWebhookParseResult {
        let key = try root.requiredString("id")
        guard key.utf8.count <= 256 else { throw CarrierWebhookError(.invalidField, "id must be at most 256 bytes") }
        let trackingNumber = try root.trackingNumber("trackingNumber")
        guard let occurredAt = try root.date("occurredAt") else { throw CarrierWebhookError(.missingField, "occurredAt is missing") }
        var estimate = try root.date("estimatedDeliveryAt").map { EstimatedDelivery(at: $0) }
        if let window = try root.string("estimatedDeliveryWindowDuration") {
            guard DateTimeFormat.isISO8601Duration(window) else {
                throw CarrierWebhookError(.invalidField, "estimatedDeliveryWindowDuration must be an ISO 8601 duration such as PT4H")
            }
            guard estimate != nil else { throw CarrierWebhookError(.missingField, "estimatedDeliveryWindowDuration needs estimatedDeliveryAt") }
            estimate?.windowDuration = window
        }
        let url = try root.string("trackingURL")
        guard url == nil || Reading.trackingURL(url) != nil else {
            throw CarrierWebhookError(.invalidField, "trackingURL must be an http or https URL of at most 2,048 bytes")
        }
        let carrier = Reading.carrier(code: try root.requiredString("carrier"), trackingNumber: trackingNumber, url: url)
        return .event(
            CarrierEvent(
                provider: .generic, idempotencyKey: key, trackingNumber: trackingNumber, carrierCode: carrier.code, carrierName: carrier.name,
                status: try root.requiredString("status"), occurredAt: occurredAt, estimatedDelivery: estimate, trackingURL: carrier.url,
                statusDescription: Reading.description(try root.string("statusDescription")), orderReference: try root.reference("orderIdentifier")))
    }
}
