import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OrderModel
import OrderPersistence

/// What merchants moving from a payment provider use on the merchant API: their order defaults, which fill what the
/// provider's simplified order form lacks, and "Track in Wallet" links.
package struct ProviderRoutes: Sendable {
    let administration: Administration
    let walletLinks: WalletLinkService
    let maximumBodySize: Int

    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        merchantAPI.get("order-defaults") { _, context in
            Self.json(try await administration.orderDefaults(merchantID: context.merchant.id))
        }
        merchantAPI.put("order-defaults") { request, context in
            let defaults = try await defaults(request)
            let merchant = context.merchant
            try await administration.setOrderDefaults(merchantID: merchant.id, defaults)
            return Self.json(try await administration.orderDefaults(merchantID: merchant.id))
        }
        // An order type's own defaults win over the merchant-wide ones, field by field; `effective` shows the result.
        merchantAPI.get("order-types/:orderTypeIdentifier/order-defaults") { _, context in
            let type = try RequestParsing.identifier("orderTypeIdentifier", context)
            return try await typeDefaults(merchantID: context.merchant.id, type: type)
        }
        merchantAPI.put("order-types/:orderTypeIdentifier/order-defaults") { request, context in
            let type = try RequestParsing.identifier("orderTypeIdentifier", context)
            let defaults = try await defaults(request)
            let merchant = context.merchant
            try await administration.setOrderDefaults(merchantID: merchant.id, orderTypeIdentifier: type, defaults)
            return try await typeDefaults(merchantID: merchant.id, type: type)
        }
        merchantAPI.post("orders/:orderTypeIdentifier/:orderIdentifier/wallet-link") { request, context in
            try await Self.createLink(request, context, walletLinks: walletLinks, maximumBodySize: maximumBodySize)
        }
        merchantAPI.delete("wallet-links/:id") { _, context in
            Self.json(try await walletLinks.revoke(merchant: context.merchant, id: try RequestParsing.identifier("id", context)))
        }
    }

    /// The body of a `PUT` of order defaults: the three fields, each a string or null; any other member is refused.
    func defaults(_ request: Request) async throws -> ProviderVocabulary.Defaults {
        let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize)
        guard let members = body.objectValue else {
            throw APIError.badRequest("body_not_object", "the body must be a JSON object such as {\"orderManagementURL\": \"https://…\"}")
        }
        let known: Set = ["orderManagementURL", "fulfillmentType", "paymentStatus"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError.badRequest(
                "field_unknown", "\(unknown) is not an order default; the defaults are \(known.sorted().joined(separator: ", "))", param: unknown)
        }
        return ProviderVocabulary.Defaults(
            orderManagementURL: try Self.optionalString(members, "orderManagementURL"),
            fulfillmentType: try Self.optionalString(members, "fulfillmentType"), paymentStatus: try Self.optionalString(members, "paymentStatus"))
    }

    /// An order type's defaults as the API shows them: its own, and `effective`, what its orders get.
    func typeDefaults(merchantID: String, type: String) async throws -> JSONValue {
        guard try await administration.orderTypes(merchantID: merchantID).contains(where: { $0.orderTypeIdentifier == type }) else {
            throw OrderTrackError(.notFound, "this merchant has no order type \(type); configure it first")
        }
        let scoped = try await administration.orderDefaults(merchantID: merchantID, orderTypeIdentifier: type)
        var json = Self.json(scoped.own)
        json["orderTypeIdentifier"] = .string(type)
        json["effective"] = Self.json(scoped.effective)
        return json
    }

    /// `POST …/orders/{orderTypeIdentifier}/{orderIdentifier}/wallet-link`, on the merchant API and the dashboard's alike.
    package static func createLink(_ request: Request, _ context: MerchantRequestContext, walletLinks: WalletLinkService, maximumBodySize: Int)
        async throws -> EditedResponse<JSONValue>
    {
        // The body is optional: an empty one asks for the default lifetime.
        let (lifetime, singleUse) = try linkOptions(try await RequestParsing.body(request, limit: maximumBodySize))
        let link = try await walletLinks.create(
            merchant: context.merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
            id: try RequestParsing.identifier("orderIdentifier", context), lifetime: lifetime, singleUse: singleUse)
        return createdResponse(link)
    }

    /// A link request's `expiresIn` (whole seconds) and `singleUse`; an empty body asks for the defaults.
    static func linkOptions(_ bytes: [UInt8]) throws -> (lifetime: TimeInterval?, singleUse: Bool) {
        guard !bytes.isEmpty else { return (nil, false) }
        let body = try RequestParsing.json(bytes)
        var lifetime: TimeInterval?
        if let value = body["expiresIn"] {
            guard let seconds = value.numberLiteral.flatMap(Int.init) else {
                throw APIError.badRequest("wallet_link_invalid", "expiresIn must be a whole number of seconds", param: "expiresIn")
            }
            lifetime = TimeInterval(seconds)
        }
        var singleUse = false
        if let value = body["singleUse"] {
            guard let flag = value.boolValue else {
                throw APIError.badRequest("wallet_link_invalid", "singleUse must be true or false", param: "singleUse")
            }
            singleUse = flag
        }
        return (lifetime, singleUse)
    }

    /// A new link as its creator sees it, the only answer that shows its URL.
    static func createdResponse(_ link: WalletLinkService.CreatedLink) -> EditedResponse<JSONValue> {
        var json = Self.json(link.record)
        json["url"] = .string(link.url)
        return EditedResponse(status: .created, headers: [.cacheControl: "no-store"], response: json)
    }

    static func optionalString(_ members: [String: JSONValue], _ name: String) throws -> String? {
        switch members[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw APIError.badRequest("field_invalid", "\(name) must be a string or null, not \(other.kindName)", param: name)
        }
    }

    static func json(_ defaults: ProviderVocabulary.Defaults) -> JSONValue {
        [
            "orderManagementURL": defaults.orderManagementURL.map(JSONValue.string) ?? .null,
            "fulfillmentType": defaults.fulfillmentType.map(JSONValue.string) ?? .null,
            "paymentStatus": defaults.paymentStatus.map(JSONValue.string) ?? .null,
        ]
    }

    /// A link as the API shows it; the URL (and so the token) only in the answer that created it.
    static func json(_ link: WalletLinkRecord) -> JSONValue {
        [
            "id": .string(link.id), "orderTypeIdentifier": .string(link.order.orderTypeIdentifier),
            "orderIdentifier": .string(link.order.orderIdentifier), "createdAt": .string(DateTimeFormat.formatRFC3339(link.createdAt)),
            "expiresAt": .string(DateTimeFormat.formatRFC3339(link.expiresAt)),
            "revokedAt": link.revokedAt.map { .string(DateTimeFormat.formatRFC3339($0)) } ?? .null, "singleUse": .bool(link.singleUse),
            "usedAt": link.usedAt.map { .string(DateTimeFormat.formatRFC3339($0)) } ?? .null,
        ]
    }
}
