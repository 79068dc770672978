import Foundation

/// What creating an order fills in content that leaves it out: the identifier, the authentication token, dates and
/// the fields with one usual value. The server's `POST /api/v1/orders` and `ordertrack validate` both fill through it, so
/// a body judged offline is the order the server would store.
public enum OrderCreation {
    /// `content` (either vocabulary, wrapped in a lone `order` or not) with an `orderIdentifier` where its order has
    /// none: creation names the order before translating it, so an `orderManagementURL` default may hold the
    /// `{orderIdentifier}` placeholder. `nil` for content that is not an object.
    ///
    /// - Parameters:
    ///   - content: the body as sent.
    ///   - orderIdentifier: a new identifier, asked for only when the order has none.
    public static func identified(_ content: JSONValue, orderIdentifier: () -> String) -> (content: JSONValue, generated: Bool)? {
        guard var members = ProviderVocabulary.orderMembers(of: content) else { return nil }
        guard members["orderIdentifier"] == nil else { return (content, false) }
        members["orderIdentifier"] = .string(orderIdentifier())
        return (ProviderVocabulary.wrappedOrder(content) == nil ? .object(members) : ["order": .object(members)], true)
    }

    /// `content` with each absent member filled; `filled` names them in document order.
    ///
    /// - Parameters:
    ///   - content: the order's members, in Apple's vocabulary.
    ///   - orderTypeIdentifier: the order type the server resolved (the named one or the merchant's default).
    ///   - webServiceURL: the server's web service URL.
    ///   - now: the creation time, for `createdAt` (and `updatedAt`, which starts equal to it).
    ///   - authenticationToken: a new token, asked for only when the content has none.
    public static func filled(
        _ content: [String: JSONValue], orderTypeIdentifier: String, webServiceURL: String, now: Date,
        authenticationToken: () -> String
    ) -> (document: [String: JSONValue], filled: [String]) {
        var document = content
        var filled: [String] = []
        func fill(_ key: String, _ value: @autoclosure () -> JSONValue) {
            guard document[key] == nil else { return }
            document[key] = value()
            filled.append(key)
        }
        let timestamp = JSONValue.string(DateTimeFormat.formatRFC3339(now))
        fill("schemaVersion", 1)
        fill("orderTypeIdentifier", .string(orderTypeIdentifier))
        fill("orderType", "ecommerce")
        fill("status", "open")
        fill("createdAt", timestamp)
        fill("updatedAt", document["createdAt"] ?? timestamp)
        fill("webServiceURL", .string(webServiceURL))
        fill("authenticationToken", .string(authenticationToken()))
        return (document, filled)
    }
}
