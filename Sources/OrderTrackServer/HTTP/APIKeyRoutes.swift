import Foundation
import Hummingbird
import OrderModel
import OrderPersistence

/// `/api/v1/api-keys`: a merchant's secret key makes restricted keys, lists and revokes them; any live key can rotate
/// itself. The secret is in the answer that creates or rotates a key, and nowhere else.
struct APIKeyRoutes: Sendable {
    let administration: Administration
    let maximumBodySize: Int

    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        merchantAPI.post("api-keys") { request, context -> EditedResponse<JSONValue> in
            let creation = try Self.creation(try await RequestParsing.jsonBody(request, limit: maximumBodySize))
            let (key, secret) = try await administration.createAPIKey(
                merchantID: context.merchant.id, name: creation.name, scopes: creation.scopes, orderTypeIdentifiers: creation.orderTypes,
                expiresAt: creation.expiresAt)
            return Self.secretResponse(key, secret, status: .created)
        }
        merchantAPI.get("api-keys") { _, context -> JSONValue in
            ["data": .array(try await administration.apiKeys(merchantID: context.merchant.id).map(Self.json))]
        }
        merchantAPI.delete("api-keys/:id") { _, context -> JSONValue in
            Self.json(
                try await administration.revokeAPIKey(
                    merchantID: context.merchant.id, id: try RequestParsing.identifier("id", context)))
        }
        merchantAPI.post("api-keys/:id/rotate") { _, context -> EditedResponse<JSONValue> in
            let (key, secret) = try await administration.rotateAPIKey(
                merchantID: context.merchant.id, id: try RequestParsing.identifier("id", context))
            return Self.secretResponse(key, secret, status: .ok)
        }
    }

    /// What `POST /api-keys` asks for.
    struct Creation {
        var name: String
        var scopes: [String]
        var orderTypes: [String]?
        var expiresAt: Date?
    }

    static func creation(_ body: JSONValue) throws -> Creation {
        guard let members = body.objectValue else {
            throw APIError.badRequest(
                "body_not_object", "the body must be a JSON object such as {\"name\": \"carrier\", \"scopes\": [\"fulfillments:write\"]}")
        }
        let known: Set = ["name", "scopes", "orderTypeIdentifiers", "expiresAt"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError.badRequest(
                "field_unknown", "\(unknown) is not a field of an API key; use \(known.sorted().joined(separator: ", "))", param: unknown)
        }
        guard let name = members["name"]?.stringValue else {
            throw APIError.badRequest("api_key_invalid", "name is required: a string naming who holds the key", param: "name")
        }
        let strings = { (field: String) throws -> [String]? in
            switch members[field] {
            case nil, .null?: return nil
            case .array(let items)?:
                return try items.map {
                    guard let text = $0.stringValue else {
                        throw APIError.badRequest("api_key_invalid", "\(field) must be an array of strings", param: field)
                    }
                    return text
                }
            case let other?: throw APIError.badRequest("api_key_invalid", "\(field) must be an array of strings, not \(other.kindName)", param: field)
            }
        }
        guard let scopes = try strings("scopes") else {
            throw APIError.badRequest(
                "api_key_invalid", "scopes is required: the scopes the key may use, such as [\"orders:read\", \"fulfillments:write\"]",
                param: "scopes")
        }
        var expiresAt: Date?
        switch members["expiresAt"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let date = DateTimeFormat.parseRFC3339(text) else {
                throw APIError.badRequest("api_key_invalid", "expiresAt must be an RFC 3339 date-time like 2027-01-31T00:00:00Z", param: "expiresAt")
            }
            expiresAt = date
        case let other?: throw APIError.badRequest("api_key_invalid", "expiresAt must be a string, not \(other.kindName)", param: "expiresAt")
        }
        return Creation(name: name, scopes: scopes, orderTypes: try strings("orderTypeIdentifiers"), expiresAt: expiresAt)
    }

    /// A key as listings show it: never its secret or hash.
    static func json(_ key: APIKeyInfo) -> JSONValue {
        let date = { (value: Date?) in value.map { JSONValue.string(DateTimeFormat.formatRFC3339($0)) } ?? .null }
        return [
            "id": .string(key.id), "name": .string(key.name), "prefix": .string(key.prefix),
            "scopes": key.scopes.map { .array($0.map(JSONValue.string)) } ?? .null,
            "orderTypeIdentifiers": key.orderTypeIdentifiers.map { .array($0.map(JSONValue.string)) } ?? .null,
            "createdAt": date(key.createdAt), "expiresAt": date(key.expiresAt), "revokedAt": date(key.revokedAt), "lastUsedAt": date(key.lastUsedAt),
        ]
    }

    /// The one answer that carries a key's secret; never cached.
    static func secretResponse(_ key: APIKeyInfo, _ secret: String, status: HTTPResponse.Status) -> EditedResponse<JSONValue> {
        var body = json(key)
        body["secret"] = .string(secret)
        return EditedResponse(status: status, headers: [.cacheControl: "no-store"], response: body)
    }
}
