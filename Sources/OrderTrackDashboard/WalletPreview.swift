import Foundation
import OrderModel

/// An order laid out the way Wallet shows it (merchant, order number, each fulfillment's progress, returns, line items,
/// totals, payment), as plain values for the order page's template. Built from the stored document, which the validator has
/// already accepted, so absent optional fields are simply left out.
struct WalletPreview: Sendable {
    /// One fulfillment: what it is, how far it got and how to follow it.
    struct Fulfillment: Sendable {
        var headline: String
        var statusDescription: String?
        var steps: [Step]
        var carrier: String?
        var trackingNumber: String?
        var location: String?
        var pickupWindow: String?
    }

    /// One return: its state and what the customer needs to send it back.
    struct Return: Sendable {
        var headline: String
        var statusDescription: String?
        var carrier: String?
        var returnNumber: String?
        var dropOffBy: String?
    }

    /// One stop on a fulfillment's progress line.
    struct Step: Sendable {
        enum State: String, Sendable { case done, current, upcoming, stopped }
        var label: String
        var state: State
    }

    var merchantName: String
    var logoURL: String?
    var orderNumber: String
    var status: String
    var fulfillments: [Fulfillment]
    var returns: [Return]
    /// The return policy's description and deadline, as Wallet shows them under the order.
    var returnPolicy: String?
    var lineItems: [(title: String, subtitle: String?, quantity: String, price: String?, imageURL: String?)]
    var summaryItems: [(label: String, value: String)]
    var total: String
    var paymentStatus: String
    var paymentMethods: String?

    /// `imageURL` says where the page loads an image the order names (the merchant logo, line items' images), `nil`
    /// for one the merchant has not uploaded; `strings` is the chosen localization's `order.strings`, whose values
    /// replace the localizable texts that are its keys, as Wallet does.
    init(order: JSONValue, orderIdentifier: String, strings: [String: String] = [:], imageURL: (String) -> String?) {
        let text = { (value: JSONValue?) in value?.stringValue.map { strings[$0] ?? $0 } }
        merchantName = text(order["merchant"]?["displayName"]) ?? "Merchant"
        logoURL = order["merchant"]?["logo"]?.stringValue.flatMap(imageURL)
        orderNumber = order["orderNumber"]?.stringValue ?? orderIdentifier
        status = order["status"]?.stringValue ?? "open"
        fulfillments = (order["fulfillments"]?.arrayValue ?? []).map { Self.fulfillment($0, text: text) }
        returns = (order["returns"]?.arrayValue ?? []).map { value in
            Return(
                headline: "Return · \(Self.words(value["status"]?.stringValue ?? "open"))", statusDescription: text(value["statusDescription"]),
                carrier: text(value["carrier"]), returnNumber: value["returnNumber"]?.stringValue,
                dropOffBy: value["dropOffBy"].flatMap(Self.date))
        }
        let info = order["returnInfo"]
        let policy = [text(info?["returnPolicyDescription"]), info?["returnDeadline"].flatMap(Self.date).map { "returns until \($0)" }]
            .compactMap { $0 }
        returnPolicy = policy.isEmpty ? nil : policy.joined(separator: " · ")
        lineItems = (order["lineItems"]?.arrayValue ?? []).map { item in
            (
                text(item["title"]) ?? "Item", text(item["subtitle"]), item["quantity"]?.numberLiteral ?? "1",
                item["price"].map(Self.money), item["image"]?.stringValue.flatMap(imageURL)
            )
        }
        let payment = order["payment"]
        summaryItems = (payment?["summaryItems"]?.arrayValue ?? []).map { (text($0["label"]) ?? "", $0["value"].map(Self.money) ?? "") }
        total = payment?["total"].map(Self.money) ?? "—"
        paymentStatus = Self.paymentState(payment)
        // The deprecated list, else the methods of the transactions that replace it (schemaVersion 2).
        var methods = (payment?["paymentMethods"]?.arrayValue ?? []).compactMap { text($0) }
        if methods.isEmpty {
            for method in (payment?["transactions"]?.arrayValue ?? []).compactMap({ text($0["paymentMethod"]?["displayName"]) })
            where !methods.contains(method) {
                methods.append(method)
            }
        }
        paymentMethods = methods.isEmpty ? nil : methods.joined(separator: ", ")
    }

    /// The payment's state: its status, deprecated by Apple, or, when a schemaVersion 2 order leaves it out, what the
    /// completed transactions say (refunds adding up to the total are "Refunded").
    static func paymentState(_ payment: JSONValue?) -> String {
        if let status = payment?["status"]?.stringValue { return words(status) }
        let transactions = payment?["transactions"]?.arrayValue ?? []
        func sum(_ type: String) -> Decimal {
            transactions.filter { $0["status"] == "completed" && $0["transactionType"] == .string(type) }
                .compactMap { $0["amount"]?["amount"].flatMap(Amount.literal(of:)).flatMap { Decimal(string: $0) } }
                .reduce(0, +)
        }
        let total = payment?["total"]?["amount"].flatMap(Amount.literal(of:)).flatMap { Decimal(string: $0) } ?? 0
        let refunded = sum("refund")
        if refunded > 0 { return refunded >= total ? "Refunded" : "Partly refunded" }
        if sum("purchase") > 0 { return "Paid" }
        return transactions.contains { $0["status"] == "approved" } ? "Authorized" : "Pending"
    }

    static let shippingSteps = [
        ("Ordered", ["open"]), ("Processing", ["processing"]), ("On the way", ["onTheWay", "shipped", "outForDelivery"]),
        ("Delivered", ["delivered"]),
    ]
    static let pickupSteps = [
        ("Ordered", ["open"]), ("Processing", ["processing"]), ("Ready for pickup", ["readyForPickup"]), ("Picked up", ["pickedUp"]),
    ]

    static func fulfillment(_ value: JSONValue, text: (JSONValue?) -> String?) -> Fulfillment {
        let isPickup = value["fulfillmentType"]?.stringValue == "pickup"
        let status = value["status"]?.stringValue ?? "open"
        let stages = isPickup ? pickupSteps : shippingSteps
        let steps: [Step]
        if let reached = stages.firstIndex(where: { $0.1.contains(status) }) {
            let finished = reached == stages.count - 1
            steps = stages.enumerated().map { index, stage in
                let label = index == reached && status == "outForDelivery" ? "Out for delivery" : stage.0
                return Step(label: label, state: index < reached || (finished && index == reached) ? .done : index == reached ? .current : .upcoming)
            }
        } else {
            // `issue` and `cancelled` stop the line where it is.
            steps = [Step(label: "Ordered", state: .done), Step(label: words(status), state: .stopped)]
        }
        let headline: String
        if isPickup {
            headline = status == "readyForPickup" ? "Ready for pickup" : "Pickup · \(words(status))"
        } else {
            headline = status == "outForDelivery" ? "Out for delivery" : "Shipment · \(words(status))"
        }
        // Apple's pickup window is a start (`pickupAt`) and a length (`pickupWindowDuration`, ISO 8601).
        let window = value["pickupAt"].flatMap(date).map { start in
            value["pickupWindowDuration"]?.stringValue.flatMap(durationWords).map { "\(start), for \($0)" } ?? start
        }
        return Fulfillment(
            headline: headline, statusDescription: text(value["statusDescription"]), steps: steps, carrier: text(value["carrier"]),
            trackingNumber: value["trackingNumber"]?.stringValue, location: isPickup ? text(value["displayName"]) : nil,
            pickupWindow: window)
    }

    /// A date-time of the order as the page shows dates.
    static func date(_ value: JSONValue) -> String? {
        value.stringValue.flatMap(DateTimeFormat.parseRFC3339).map { OrderRow.format($0) }
    }

    /// `PT2H30M` → `2 hours 30 minutes`, `P1D` → `1 day`; `nil` for durations with years, months or weeks, which pickup
    /// windows do not use.
    static func durationWords(_ duration: String) -> String? {
        guard duration.hasPrefix("P") else { return nil }
        var words: [String] = []
        var number = ""
        var inTime = false
        for character in duration.dropFirst() {
            if character.isNumber {
                number.append(character)
                continue
            }
            if character == "T" {
                inTime = true
                continue
            }
            let unit: String? =
                switch (character, inTime) {
                case ("D", false): "day"
                case ("H", true): "hour"
                case ("M", true): "minute"
                case ("S", true): "second"
                default: nil
                }
            guard let unit, let count = Int(number) else { return nil }
            words.append("\(count) \(unit)\(count == 1 ? "" : "s")")
            number = ""
        }
        return words.isEmpty || !number.isEmpty ? nil : words.joined(separator: " ")
    }

    /// `$42.00`, `€9.50`, or `CHF 12.00` for currencies without a common symbol.
    static func money(_ value: JSONValue) -> String {
        let amount = value["amount"]?.numberLiteral ?? value["amount"]?.stringValue ?? "0"
        let currency = value["currency"]?.stringValue ?? ""
        let symbols = ["USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "AUD": "A$", "CAD": "CA$"]
        return symbols[currency].map { $0 + amount } ?? "\(currency) \(amount)"
    }

    /// `readyForPickup` → `Ready for pickup`.
    static func words(_ camelCase: String) -> String {
        var text = ""
        for character in camelCase {
            if character.isUppercase, !text.isEmpty { text += " " + character.lowercased() } else { text.append(character) }
        }
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// A status's badge colour: green when done, red when stopped, blue while under way.
    static func tone(_ status: String?) -> String {
        switch status {
        case "completed", "delivered", "pickedUp", "success": "green"
        case "cancelled", "issue", "failed", "parked": "red"
        case "retrying": "amber"
        case "open", nil: "grey"
        default: "blue"
        }
    }

    /// The values the `order` template reads under `preview`.
    var templateValues: [String: Any] {
        [
            "merchantName": merchantName, "merchantInitial": String(merchantName.prefix(1)).uppercased(), "logoURL": logoURL ?? false,
            "orderNumber": orderNumber, "statusLabel": Self.words(status), "statusTone": Self.tone(status),
            "fulfillments": fulfillments.map { fulfillment -> [String: Any] in
                [
                    "headline": fulfillment.headline, "statusDescription": fulfillment.statusDescription ?? false,
                    "steps": fulfillment.steps.map { ["label": $0.label, "state": $0.state.rawValue] },
                    "carrier": fulfillment.carrier ?? false, "trackingNumber": fulfillment.trackingNumber ?? false,
                    "location": fulfillment.location ?? false, "pickupWindow": fulfillment.pickupWindow ?? false,
                ]
            },
            "returns": returns.map { entry -> [String: Any] in
                [
                    "headline": entry.headline, "statusDescription": entry.statusDescription ?? false, "carrier": entry.carrier ?? false,
                    "returnNumber": entry.returnNumber ?? false, "dropOffBy": entry.dropOffBy ?? false,
                ]
            },
            "returnPolicy": returnPolicy ?? false,
            "lineItems": lineItems.map { item -> [String: Any] in
                [
                    "title": item.title, "subtitle": item.subtitle ?? false, "quantity": item.quantity, "price": item.price ?? "",
                    "imageURL": item.imageURL ?? false,
                ]
            },
            "summaryItems": summaryItems.map { ["label": $0.label, "value": $0.value] }, "total": total, "paymentStatus": paymentStatus,
            "paymentMethods": paymentMethods ?? false,
        ]
    }
}
