import CarrierTracking
import Foundation
import HTTPTypes
import Hummingbird
import OrderModel
import OrderPersistence

/// Carrier tracking: the merchant API's `/api/v1/carrier-connections`, and `POST /carriers/{provider}/{id}`, where
/// the providers deliver their signed webhooks (no API key: the signature is the credential).
struct CarrierRoutes: Sendable {
    let connections: CarrierConnections
    let receiver: CarrierWebhookReceiver
    let maximumBodySize: Int

    /// Adds the webhook route to the root router, which keeps its request limits.
    func add(to router: Router<OrderTrackRequestContext>) {
        router.post("carriers/:provider/:id") { request, context -> EditedResponse<JSONValue> in
            let provider = context.parameters.get("provider") ?? ""
            let id = context.parameters.get("id") ?? ""
            let body = try await RequestParsing.body(request, limit: CarrierWebhookParser.maximumBodySize)
            let headers = CarrierRequestHeaders(request.headers.map { (name: $0.name.rawName, value: $0.value) })
            switch try await receiver.receive(provider: provider, connectionID: id, body: body, headers: headers, logger: context.logger) {
            case .accepted(let id): return EditedResponse(status: .accepted, response: ["status": "accepted", "id": .integer(Int(id))])
            case .duplicate(let id): return EditedResponse(status: .ok, response: ["status": "duplicate", "id": .integer(Int(id))])
            case .ignored(let reason): return EditedResponse(status: .ok, response: ["status": "ignored", "reason": .string(reason)])
            }
        }
    }

    /// Adds the connection routes to the merchant API group, behind its authentication.
    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        merchantAPI.post("carrier-connections") { request, context -> EditedResponse<JSONValue> in
            let creation = try Self.creation(try await RequestParsing.jsonBody(request, limit: maximumBodySize))
            let record = try await connections.create(merchantID: context.merchant.id, creation)
            return EditedResponse(status: .created, headers: [.cacheControl: "no-store"], response: json(record))
        }
        merchantAPI.get("carrier-connections") { _, context -> JSONValue in
            ["data": .array(try await connections.list(merchantID: context.merchant.id).map(json))]
        }
        merchantAPI.delete("carrier-connections/:id") { _, context -> Response in
            let id = try RequestParsing.identifier("id", context)
            try await connections.delete(merchantID: context.merchant.id, id: id)
            return Response(status: .noContent)
        }
    }

    /// What `POST /carrier-connections` asks for; fields of the wrong type or unknown are refused.
    static func creation(_ body: JSONValue) throws -> CarrierConnections.Creation {
        guard let members = body.objectValue else {
            throw APIError.badRequest(
                "body_not_object", "the body must be a JSON object such as {\"provider\": \"aftership\", \"secret\": \"<webhook secret>\"}")
        }
        let known: Set = ["provider", "secret", "jwksURL", "statusMap"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError.badRequest(
                "field_unknown", "\(unknown) is not a field of a carrier connection; use \(known.sorted().joined(separator: ", "))", param: unknown)
        }
        let string = { (field: String) throws -> String? in
            switch members[field] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case let other?: throw invalid(field, "\(field) must be a string, not \(other.kindName)")
            }
        }
        guard let provider = try string("provider") else {
            throw invalid("provider", "provider is required: \(CarrierProvider.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var statusMap: [String: String]?
        switch members["statusMap"] {
        case nil, .null?: break
        case .object(let entries)?:
            statusMap = try entries.mapValues { value in
                guard let text = value.stringValue else { throw invalid("statusMap", "statusMap values must be Wallet shipping statuses (strings)") }
                return text
            }
        case let other?: throw invalid("statusMap", "statusMap must be an object of provider status → Wallet status, not \(other.kindName)")
        }
        return CarrierConnections.Creation(provider: provider, secret: try string("secret"), jwksURL: try string("jwksURL"), statusMap: statusMap)
    }

    private static func invalid(_ field: String, _ message: String) -> APIError {
        APIError.badRequest(OrderTrackError.Code.invalidCarrierConnection.name, message, param: field)
    }

    /// A connection as the API shows it: never its secret.
    func json(_ record: CarrierConnectionRecord) -> JSONValue {
        [
            "id": .string(record.id), "provider": .string(record.provider), "webhookURL": .string(connections.webhookURL(record)),
            "createdAt": .string(DateTimeFormat.formatRFC3339(record.createdAt)), "jwksURL": record.jwksURL.map(JSONValue.string) ?? .null,
            "statusMap": record.statusMap.map { .object($0.mapValues(JSONValue.string)) } ?? .null,
        ]
    }
}
