import Hummingbird
import OrderModel
import OrderPersistence

/// The merchant's event log (`GET /api/v1/events`, `GET /api/v1/events/{id}`): what changed, as the store wrote it
/// with each change. Another merchant's events are not found, as unknown ones are.
struct EventRoutes: Sendable {
    let events: any EventLog

    /// Adds the routes to the merchant API group, behind its authentication.
    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        merchantAPI.get("events") { request, context -> JSONValue in
            let query = request.uri.queryParameters
            let limit = try RequestParsing.limit(request, default: 20, maximum: SQLOrderStore.maximumEventPageSize)
            var type: EventType?
            if let text = query["type"].map(String.init) {
                guard let known = EventType(rawValue: text) else {
                    throw APIError.badRequest(
                        "type_invalid", "type must be one of \(EventType.allCases.map(\.rawValue).joined(separator: ", "))", param: "type")
                }
                type = known
            }
            let page: EventPage
            do {
                page = try await events.events(merchantID: context.merchant.id, type: type, after: query["after"].map(String.init), limit: limit)
            } catch OrderStoreError.invalidCursor {
                throw OrderTrackError(.invalidCursor, "after must be a nextCursor value returned by this endpoint", field: "after")
            }
            return ["data": .array(try page.events.map(Self.json)), "nextCursor": page.nextCursor.map(JSONValue.string) ?? .null]
        }
        merchantAPI.get("events/:id") { _, context -> JSONValue in
            let id = context.parameters.get("id") ?? ""
            guard let event = try await events.event(id: id, merchantID: context.merchant.id) else {
                throw APIError.notFound("no event \(id)")
            }
            return try Self.json(event)
        }
    }

    /// An event as the API shows it (and as webhooks will send it).
    static func json(_ event: EventRecord) throws -> JSONValue {
        [
            "id": .string(event.id), "type": .string(event.type.rawValue), "createdAt": .string(DateTimeFormat.formatRFC3339(event.createdAt)),
            "data": try JSONValue.parse(Array(event.data.utf8)),
        ]
    }
}
