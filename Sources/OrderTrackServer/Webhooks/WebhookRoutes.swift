import Foundation
import HTTPTypes
import Hummingbird
import OrderModel
import OrderPersistence

/// The merchant API's `/api/v1/webhook-endpoints`: endpoints, their secrets (shown only when made), their delivery
/// log and resends. Another merchant's endpoints are not found, as unknown ones are.
struct WebhookRoutes: Sendable {
    let endpoints: WebhookEndpoints
    let maximumBodySize: Int

    /// Adds the routes to the merchant API group, behind its authentication.
    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        merchantAPI.post("webhook-endpoints") { request, context -> EditedResponse<JSONValue> in
            let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize)
            let (url, events, description) = try Self.creation(body)
            let created = try await endpoints.create(merchantID: context.merchant.id, url: url, events: events, description: description)
            return EditedResponse(
                status: .created, headers: [.cacheControl: "no-store"], response: Self.json(created.endpoint, secret: created.secret))
        }
        merchantAPI.get("webhook-endpoints") { _, context -> JSONValue in
            ["data": .array(try await endpoints.list(merchantID: context.merchant.id).map { Self.json($0) })]
        }
        merchantAPI.get("webhook-endpoints/:id") { _, context -> JSONValue in
            Self.json(try await endpoints.endpoint(merchantID: context.merchant.id, id: try RequestParsing.identifier("id", context)))
        }
        merchantAPI.delete("webhook-endpoints/:id") { _, context -> Response in
            try await endpoints.delete(merchantID: context.merchant.id, id: try RequestParsing.identifier("id", context))
            return Response(status: .noContent)
        }
        merchantAPI.post("webhook-endpoints/:id/rotate-secret") { _, context -> EditedResponse<JSONValue> in
            let rotated = try await endpoints.rotateSecret(merchantID: context.merchant.id, id: try RequestParsing.identifier("id", context))
            return EditedResponse(status: .ok, headers: [.cacheControl: "no-store"], response: Self.json(rotated.endpoint, secret: rotated.secret))
        }
        merchantAPI.post("webhook-endpoints/:id/enable") { _, context -> JSONValue in
            Self.json(try await endpoints.enable(merchantID: context.merchant.id, id: try RequestParsing.identifier("id", context)))
        }
        merchantAPI.get("webhook-endpoints/:id/deliveries") { request, context -> JSONValue in
            let limit = try RequestParsing.limit(request, default: 20, maximum: SQLOrderStore.maximumEventPageSize)
            let page = try await endpoints.deliveries(
                merchantID: context.merchant.id, id: try RequestParsing.identifier("id", context),
                after: request.uri.queryParameters["after"].map(String.init), limit: limit)
            return ["data": .array(page.deliveries.map(Self.json)), "nextCursor": page.nextCursor.map(JSONValue.string) ?? .null]
        }
        merchantAPI.post("webhook-endpoints/:id/deliveries/:deliveryId/resend") { _, context -> JSONValue in
            Self.json(
                try await endpoints.resend(
                    merchantID: context.merchant.id, id: try RequestParsing.identifier("id", context),
                    deliveryID: try RequestParsing.identifier("deliveryId", context)))
        }
    }

    /// What `POST /webhook-endpoints` asks for; fields of the wrong type or unknown are refused.
    static func creation(_ body: JSONValue) throws -> (url: String, events: [String], description: String?) {
        guard let members = body.objectValue else {
            throw APIError.badRequest(
                "body_not_object", "the body must be a JSON object such as {\"url\": \"https://shop.example.com/hooks\", \"events\": [\"*\"]}")
        }
        let known: Set = ["url", "events", "description"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw invalid(unknown, "\(unknown) is not a field of a webhook endpoint; use \(known.sorted().joined(separator: ", "))")
        }
        guard let url = members["url"]?.stringValue else { throw invalid("url", "url is required: the https:// URL events are POSTed to") }
        let list = members["events"]?.arrayValue ?? []
        let events = list.compactMap(\.stringValue)
        guard members["events"]?.arrayValue != nil, events.count == list.count else {
            throw invalid("events", "events is required: an array of event types, or [\"*\"] for all")
        }
        var description: String?
        switch members["description"] {
        case nil, .null?: break
        case .string(let text)?: description = text
        case let other?: throw invalid("description", "description must be a string, not \(other.kindName)")
        }
        return (url, events, description)
    }

    private static func invalid(_ field: String, _ message: String) -> OrderTrackError {
        OrderTrackError(.invalidWebhookEndpoint, message, field: field)
    }

    /// An endpoint as the API shows it; the secret only in the answers that made it.
    static func json(_ record: WebhookEndpointRecord, secret: String? = nil) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(record.id), "url": .string(record.url), "events": .array(record.events.map(JSONValue.string)),
            "description": record.description.map(JSONValue.string) ?? .null, "status": .string(record.status.rawValue),
            "disabledReason": record.disabledReason.map(JSONValue.string) ?? .null,
            "createdAt": .string(DateTimeFormat.formatRFC3339(record.createdAt)),
        ]
        if let secret { members["secret"] = .string(secret) }
        return .object(members)
    }

    static func json(_ delivery: WebhookDeliveryRecord) -> JSONValue {
        [
            "id": .string(delivery.id), "eventId": .string(delivery.eventID), "eventType": .string(delivery.eventType),
            "status": .string(delivery.status.rawValue), "attempts": .integer(delivery.attempts),
            "responseStatus": delivery.responseStatus.map(JSONValue.integer) ?? .null,
            "latencyMs": delivery.latencyMilliseconds.map(JSONValue.integer) ?? .null, "error": delivery.error.map(JSONValue.string) ?? .null,
            "resendOf": delivery.resendOf.map(JSONValue.string) ?? .null, "createdAt": .string(DateTimeFormat.formatRFC3339(delivery.createdAt)),
            "updatedAt": .string(DateTimeFormat.formatRFC3339(delivery.updatedAt)),
        ]
    }
}
