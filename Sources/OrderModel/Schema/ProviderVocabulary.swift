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
        if members.count == 1, members["order"]?.objectValue != nil { return true }
        if members["total"] != nil { return true }
        if let status = members["status"]?.stringValue, simplifiedStatuses[status] != nil { return true }
        let lineItems =
            (members["lineItems"]?.arrayValue ?? [])
            + (members["fulfillments"]?.arrayValue ?? []).flatMap { $0["lineItems"]?.arrayValue ?? [] }
        if lineItems.contains(where: { $0["label"] != nil || $0["currencyCode"] != nil || $0["price"]?.stringValue != nil }) {
            return true
        }
        return (members["fulfillments"]?.arrayValue ?? []).contains { $0["trackingUrl"] != nil }
    }

    /// Apple's order status for each simplified one that differs.
    static let simplifiedStatuses = ["in_progress": "open", "fulfilled": "completed"]

    /// Translates a document in the simplified vocabulary; any other document is returned as it is.
    public static func translate(_ document: JSONValue, defaults: Defaults) -> Translation {
        guard isSimplified(document) else { return Translation(document: document, warnings: [], errors: []) }
        var translator = Translator(defaults: defaults)
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
        if let members = document.objectValue, members.count == 1, let inner = members["order"], inner.objectValue != nil {
            order = inner
            warn("order", "the order was read from inside \"order\"; send its members at the top level")
        }
        order = droppingEmptyStrings(order, at: "")
        var inProgress = false
        if let status = order["status"]?.stringValue, let apple = ProviderVocabulary.simplifiedStatuses[status] {
            order["status"] = .string(apple)
            inProgress = status == "in_progress"
            let detail = inProgress ? ", and each open fulfillment as \"processing\"" : ""
            warn("status", "\"\(status)\" was read as \"\(apple)\"\(detail)")
        }
        if let items = order["lineItems"]?.arrayValue {
            order["lineItems"] = .array(items.enumerated().map { lineItem($1, at: "lineItems[\($0)]") })
        }
        if let total = order["total"] {
            order["total"] = nil
            order["payment"] = payment(total: total, existing: order["payment"])
        }
        if let fulfillments = order["fulfillments"]?.arrayValue {
            order["fulfillments"] = .array(
                fulfillments.enumerated().map { fulfillment($1, at: "fulfillments[\($0)]", inProgress: inProgress) })
        }
        if order["orderManagementURL"] == nil {
            if let url = defaults.orderManagementURL {
                order["orderManagementURL"] = .string(url)
                warn("orderManagementURL", "missing, so the merchant's default \(url) was used")
            } else {
                errors.append(ValidationProblem(path: "orderManagementURL", message: Self.noDefault("orderManagementURL")))
            }
        }
        return order
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
    /// the merchant's default.
    mutating func payment(total: JSONValue, existing: JSONValue?) -> JSONValue {
        var payment = existing ?? .object([:])
        payment["total"] = amount(total["price"] ?? .null, currency: total["currencyCode"], at: "total.price", currencyPath: "total.currencyCode")
        warn("total", "was read as \"payment.total\"")
        if payment["status"] == nil {
            if let status = defaults.paymentStatus {
                payment["status"] = .string(status)
                warn("payment.status", "missing, so the merchant's default \"\(status)\" was used")
            } else {
                errors.append(ValidationProblem(path: "payment.status", message: Self.noDefault("paymentStatus")))
            }
        }
        return payment
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

    mutating func fulfillment(_ fulfillment: JSONValue, at path: String, inProgress: Bool) -> JSONValue {
        var fulfillment = fulfillment
        if let url = fulfillment["trackingUrl"] {
            fulfillment["trackingUrl"] = nil
            fulfillment["trackingURL"] = url
            warn("\(path).trackingUrl", "was read as \"trackingURL\"")
        }
        if fulfillment["fulfillmentType"] == nil {
            if let type = defaults.fulfillmentType {
                fulfillment["fulfillmentType"] = .string(type)
                warn("\(path).fulfillmentType", "missing, so the merchant's default \"\(type)\" was used")
            } else {
                errors.append(
                    ValidationProblem(path: "\(path).fulfillmentType", message: Self.noDefault("fulfillmentType")))
            }
        }
        if inProgress, fulfillment["status"]?.stringValue ?? "open" == "open" {
            fulfillment["status"] = "processing"
        }
        if let items = fulfillment["lineItems"]?.arrayValue {
            fulfillment["lineItems"] = .array(items.enumerated().map { lineItem($1, at: "\(path).lineItems[\($0)]") })
        }
        return fulfillment
    }

    /// The error of a required field missing from the simplified form; `setting` names the merchant's default.
    static func noDefault(_ setting: String) -> String {
        "required by Wallet: give it in the order, or set the merchant's order default \(setting)"
    }
}
