import Foundation

/// The simplified order vocabulary that payment providers document to their merchants, read as Apple's schema.
///
/// Providers describe Wallet orders with `label`/`price` strings and a `currencyCode`, a top-level `total`, statuses
/// `in_progress` and `fulfilled`, and `trackingUrl`. Merchants integrated that way keep sending it; this translation
/// gives Wallet Apple's form and reports each rewrite as a warning at its path, so the merchant learns Apple's names.
/// A document that uses none of the simplified forms is returned unchanged, value for value.
public enum ProviderVocabulary {
    /// What the simplified form lacks and Wallet requires, configured once per merchant.
    public struct Defaults: Sendable, Hashable, Codable {
        /// `orderManagementURL` of orders that name none.
        public var orderManagementURL: String?
        /// `fulfillmentType` (`shipping` or `pickup`) of fulfillments that name none.
        public var fulfillmentType: String?
        /// `payment.status` of a `total` given without one.
        public var paymentStatus: String?

        /// Defaults for the three fields; `nil` leaves a field required.
        public init(orderManagementURL: String? = nil, fulfillmentType: String? = nil, paymentStatus: String? = nil) {
            self.orderManagementURL = orderManagementURL
            self.fulfillmentType = fulfillmentType
            self.paymentStatus = paymentStatus
        }

        /// These defaults, with `fallback`'s for the fields these leave unset: an order type's over its merchant's.
        public func fallingBack(to fallback: Defaults) -> Defaults {
            Defaults(
                orderManagementURL: orderManagementURL ?? fallback.orderManagementURL, fulfillmentType: fulfillmentType ?? fallback.fulfillmentType,
                paymentStatus: paymentStatus ?? fallback.paymentStatus)
        }
    }

    /// The order in Apple's vocabulary, and what was done to get there.
    public struct Translation: Sendable, Hashable {
        /// The document to validate and store.
        public var document: JSONValue
        /// One warning per rewrite, at the path the merchant wrote.
        public var warnings: [ValidationProblem]
        /// Fields Wallet requires that neither the document nor the defaults supply; the order cannot be stored.
        public var errors: [ValidationProblem]
    }

    /// Whether `document` uses any of the simplified forms (and so is translated by ``translate(_:defaults:)``).
    public static func isSimplified(_ document: JSONValue) -> Bool {
        guard let members = document.objectValue else { return false }
        if wrappedOrder(document) != nil { return true }
        if members["total"] != nil { return true }
        if let status = members["status"]?.stringValue, simplifiedStatuses[status] != nil { return true }
        let lineItems =
            (members["lineItems"]?.arrayValue ?? [])
            + (members["fulfillments"]?.arrayValue ?? []).flatMap { $0["lineItems"]?.arrayValue ?? [] }
        if lineItems.contains(where: { $0["label"] != nil || $0["currencyCode"] != nil || $0["price"]?.stringValue != nil }) {
            return true
        }
        return (members["fulfillments"]?.arrayValue ?? []).contains {
            $0["trackingUrl"] != nil || $0["status"]?.stringValue.flatMap { simplifiedStatuses[$0] } != nil
        }
    }

    /// The members of a lone `order` wrapper (a simplified form), or `nil` when the document is not one.
    public static func wrappedOrder(_ document: JSONValue) -> [String: JSONValue]? {
        guard let members = document.objectValue, members.count == 1 else { return nil }
        return members["order"]?.objectValue
    }

    /// The order's own members: those of a lone `order` wrapper, or the document's.
    public static func orderMembers(of document: JSONValue) -> [String: JSONValue]? {
        wrappedOrder(document) ?? document.objectValue
    }

    /// The placeholders an `orderManagementURL` default may hold, filled from each order.
    public static let urlPlaceholders = ["{orderNumber}", "{orderIdentifier}"]

    /// Apple's order status for each simplified one that differs.
    static let simplifiedStatuses = ["in_progress": "open", "fulfilled": "completed"]

    /// Translates a document in the simplified vocabulary; any other document only gets the merchant's defaults for
    /// what it lacks (its own problems are the validator's to report).
    public static func translate(_ document: JSONValue, defaults: Defaults) -> Translation {
        var translator = Translator(defaults: defaults)
        guard isSimplified(document) else {
            return Translation(document: translator.defaultsOnly(document), warnings: translator.warnings, errors: [])
        }
        return Translation(document: translator.order(document), warnings: translator.warnings, errors: translator.errors)
    }
}

/// One translation's state: the problems found on the way.
private struct Translator {
    let defaults: ProviderVocabulary.Defaults
    var warnings: [ValidationProblem] = []
    var errors: [ValidationProblem] = []

    mutating func warn(_ path: String, _ message: String) {
        warnings.append(ValidationProblem(path: path, message: message, severity: .warning))
    }

    mutating func order(_ document: JSONValue) -> JSONValue {
        var order = document
        if let inner = ProviderVocabulary.wrappedOrder(document) {
            order = .object(inner)
            warn("order", "the order was read from inside \"order\"; send its members at the top level")
        }
        order = droppingEmptyStrings(order, at: "")
        var orderStatus: String?
        if let status = order["status"]?.stringValue, let apple = ProviderVocabulary.simplifiedStatuses[status] {
            order["status"] = .string(apple)
            orderStatus = status
            let detail =
                status == "in_progress"
                ? ", and each open fulfillment as \"processing\"" : ", and each unfinished fulfillment as delivered or picked up"
            warn("status", "\"\(status)\" was read as \"\(apple)\"\(detail)")
        }
        if let items = order["lineItems"]?.arrayValue {
            order["lineItems"] = .array(items.enumerated().map { lineItem($1, at: "lineItems[\($0)]") })
        }
        if let total = order["total"] {
            order["total"] = nil
            order["payment"] = payment(total: total, existing: order["payment"], statusRequired: !Self.isTransactionsOnly(order))
        }
        if let fulfillments = order["fulfillments"]?.arrayValue {
            order["fulfillments"] = .array(
                fulfillments.enumerated().map { fulfillment($1, at: "fulfillments[\($0)]", orderStatus: orderStatus) })
        }
        if order["orderManagementURL"] == nil {
            order["orderManagementURL"] = managementURL(for: order, required: true)
        }
        return order
    }

    /// An order in Apple's vocabulary with the merchant's defaults for the fields it lacks, each with a warning; a
    /// field without a default is left for the validator, which names it.
    mutating func defaultsOnly(_ document: JSONValue) -> JSONValue {
        guard var order = document.objectValue.map(JSONValue.object) else { return document }
        if order["orderManagementURL"] == nil, let url = managementURL(for: order, required: false) { order["orderManagementURL"] = url }
        if let type = defaults.fulfillmentType, let fulfillments = order["fulfillments"]?.arrayValue {
            order["fulfillments"] = .array(
                fulfillments.enumerated().map { index, fulfillment in
                    guard fulfillment.objectValue != nil, fulfillment["fulfillmentType"] == nil else { return fulfillment }
                    var filled = fulfillment
                    filled["fulfillmentType"] = .string(type)
                    warn("fulfillments[\(index)].fulfillmentType", "missing, so the merchant's default \"\(type)\" was used")
                    return filled
                })
        }
        if let status = defaults.paymentStatus, !Self.isTransactionsOnly(order), order["payment"]?.objectValue != nil,
            order["payment"]?["status"] == nil
        {
            order["payment"]?["status"] = .string(status)
            warn("payment.status", "missing, so the merchant's default \"\(status)\" was used")
        }
        return order
    }

    /// The merchant's `orderManagementURL` default for `order`, its placeholders filled from the order's number and
    /// identifier (percent-encoded); an error when a placeholder's value is missing, or (when `required`) no default.
    mutating func managementURL(for order: JSONValue, required: Bool) -> JSONValue? {
        guard let template = defaults.orderManagementURL else {
            return required ? defaulted(nil, setting: "orderManagementURL", at: "orderManagementURL") : nil
        }
        var url = template
        for (placeholder, key) in [("{orderNumber}", "orderNumber"), ("{orderIdentifier}", "orderIdentifier")] where url.contains(placeholder) {
            guard let value = order[key]?.stringValue,
                let encoded = value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#")))
            else {
                errors.append(
                    ValidationProblem(
                        path: "orderManagementURL",
                        message: "the merchant's default \"\(template)\" needs the order's \(key), which it lacks: give \(key) or orderManagementURL")
                )
                return nil
            }
            url = url.replacingOccurrences(of: placeholder, with: encoded)
        }
        warn("orderManagementURL", "missing, so the merchant's default \"\(template)\" was used: \(url)")
        return .string(url)
    }

    /// Providers send `""` for values they do not have; Apple's schema has no empty tracking numbers or URLs.
    mutating func droppingEmptyStrings(_ value: JSONValue, at path: String) -> JSONValue {
        switch value {
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            for (key, member) in members {
                let memberPath = path.isEmpty ? key : "\(path).\(key)"
                if member == .string("") {
                    warn(memberPath, "an empty string was left out")
                } else {
                    kept[key] = droppingEmptyStrings(member, at: memberPath)
                }
            }
            return .object(kept)
        case .array(let elements):
            return .array(elements.enumerated().map { droppingEmptyStrings($1, at: "\(path)[\($0)]") })
        default:
            return value
        }
    }

    mutating func lineItem(_ item: JSONValue, at path: String) -> JSONValue {
        var item = item
        if let label = item["label"] {
            item["label"] = nil
            if item["title"] == nil {
                item["title"] = label
                warn("\(path).label", "was read as \"title\"")
            } else {
                warn("\(path).label", "was left out: the line item has a \"title\"")
            }
        }
        let currency = item["currencyCode"]
        item["currencyCode"] = nil
        if let price = item["price"], price.objectValue == nil {
            item["price"] = amount(price, currency: currency, at: "\(path).price", currencyPath: "\(path).currencyCode")
        } else if currency != nil {
            warn("\(path).currencyCode", "was left out: it only qualifies a price written as text")
        }
        return item
    }

    /// `{"label", "price", "currencyCode"}` as `payment.total`, with the payment status of the order's `payment` or
    /// the merchant's default; under schemaVersion 2, where the status is deprecated and optional, none is added.
    mutating func payment(total: JSONValue, existing: JSONValue?, statusRequired: Bool) -> JSONValue {
        var payment = existing ?? .object([:])
        payment["total"] = amount(total["price"] ?? .null, currency: total["currencyCode"], at: "total.price", currencyPath: "total.currencyCode")
        warn("total", "was read as \"payment.total\"")
        if payment["status"] == nil, statusRequired {
            payment["status"] = defaulted(defaults.paymentStatus, setting: "paymentStatus", at: "payment.status")
        }
        return payment
    }

    /// Whether the order is schemaVersion 2, under which Apple's deprecated `payment.status` is left out.
    static func isTransactionsOnly(_ order: JSONValue) -> Bool {
        order["schemaVersion"]?.numberLiteral.flatMap(Int.init) == OrderSchema.transactionsOnlyVersion
    }

    /// A price written as text with its currency code, as Apple's `{"amount", "currency"}`; the validator then checks
    /// the currency and its minor units.
    mutating func amount(_ price: JSONValue, currency: JSONValue?, at path: String, currencyPath: String) -> JSONValue {
        guard let text = Amount.literal(of: price) else {
            errors.append(ValidationProblem(path: path, message: "must be a decimal amount such as \"29.99\", but is \(price.kindName)"))
            return price
        }
        guard let code = currency?.stringValue else {
            errors.append(ValidationProblem(path: currencyPath, message: "required with a price written as text (an ISO 4217 code such as \"USD\")"))
            return price
        }
        warn(path, "\"\(text)\" with currencyCode \"\(code)\" was read as {\"amount\": \(text), \"currency\": \"\(code)\"}")
        return ["amount": .number(text), "currency": .string(code)]
    }

    mutating func fulfillment(_ fulfillment: JSONValue, at path: String, orderStatus: String?) -> JSONValue {
        var fulfillment = fulfillment
        if let url = fulfillment["trackingUrl"] {
            fulfillment["trackingUrl"] = nil
            fulfillment["trackingURL"] = url
            warn("\(path).trackingUrl", "was read as \"trackingURL\"")
        }
        if fulfillment["fulfillmentType"] == nil {
            fulfillment["fulfillmentType"] = defaulted(defaults.fulfillmentType, setting: "fulfillmentType", at: "\(path).fulfillmentType")
        }
        let type = fulfillment["fulfillmentType"]?.stringValue
        let finished = type == "pickup" ? "pickedUp" : "delivered"
        switch fulfillment["status"]?.stringValue {
        case "in_progress"?:
            fulfillment["status"] = "processing"
            warn("\(path).status", "\"in_progress\" was read as \"processing\"")
        case "fulfilled"?:
            fulfillment["status"] = .string(finished)
            warn("\(path).status", "\"fulfilled\" was read as \"\(finished)\"")
        case let status:
            // The order's own status moves its fulfillments along, so Wallet never shows "Completed" above "Processing".
            if orderStatus == "in_progress", status ?? "open" == "open" {
                fulfillment["status"] = "processing"
            } else if orderStatus == "fulfilled", !["delivered", "pickedUp", "cancelled"].contains(status ?? "open") {
                fulfillment["status"] = .string(finished)
            }
        }
        if let items = fulfillment["lineItems"]?.arrayValue {
            fulfillment["lineItems"] = .array(items.enumerated().map { lineItem($1, at: "\(path).lineItems[\($0)]") })
        }
        return fulfillment
    }

    /// The merchant's default for a field Wallet requires and the simplified form lacks, with a warning saying it was
    /// used; without a default, an error naming the field and the setting that would fill it.
    mutating func defaulted(_ value: String?, setting: String, at path: String) -> JSONValue? {
        guard let value else {
            errors.append(
                ValidationProblem(path: path, message: "required by Wallet: give it in the order, or set the merchant's order default \(setting)"))
            return nil
        }
        warn(path, "missing, so the merchant's default \"\(value)\" was used")
        return .string(value)
    }
}
