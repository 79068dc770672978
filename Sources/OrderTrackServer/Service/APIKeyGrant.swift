import OrderPersistence

/// What the API key behind a request may do: its scopes and order types. Authorization reads it in two places only:
/// ``MerchantAuthenticationMiddleware`` (the route's scope, the order type in the path) and the order writes whose
/// order type or changed fields only the body tells (``OrderService``).
package struct APIKeyGrant: Sendable, Hashable {
    /// The key's id.
    var keyID: String
    /// The key's name.
    var keyName: String
    /// The key's scopes; `nil` for a secret key, which has them all.
    var scopes: Set<APIScope>?
    /// The order types the key is limited to; `nil` for all of the merchant's.
    var orderTypes: Set<String>?

    init(keyID: String, keyName: String, scopes: Set<APIScope>? = nil, orderTypes: Set<String>? = nil) {
        self.keyID = keyID
        self.keyName = keyName
        self.scopes = scopes
        self.orderTypes = orderTypes
    }

    /// The grant of a stored key. Scope names this build does not know grant nothing.
    init(_ key: APIKeyInfo) {
        self.init(
            keyID: key.id, keyName: key.name, scopes: key.scopes.map { Set($0.compactMap(APIScope.init(rawValue:))) },
            orderTypes: key.orderTypeIdentifiers.map(Set.init))
    }

    /// Whether the key holds `scope` (directly, or through the write scope of the same resource).
    func has(_ scope: APIScope) -> Bool {
        scopes.map { $0.contains { $0.grants(scope) } } ?? true
    }

    /// Whether a change must keep to the fields of ``FulfillmentPatchRule``: the key may patch orders only through
    /// `fulfillments:write`.
    var changesOnlyFulfillments: Bool { !has(.ordersWrite) }

    /// Refuses an order type outside the key's limit, with 403 naming the limit. The path alone decides, so the answer
    /// is the same whether such an order exists or not.
    func requireOrderType(_ orderType: String) throws {
        guard let orderTypes, !orderTypes.contains(orderType) else { return }
        throw OrderTrackError(
            .orderTypeNotAllowed,
            "API key \(keyID) (\(keyName)) is limited to order types \(orderTypes.sorted().joined(separator: ", ")); \(orderType) is not one of them",
            field: "orderTypeIdentifier")
    }
}
