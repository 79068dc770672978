import Foundation
import OrderModel
import OrderPersistence
import OrderTrackServer

/// What the checkout playground's page starts with: an Apple Pay JS payment request and order content that fit
/// together (the request's total is the order's `payment.total`, which a real checkout checks), for the merchant's
/// first order type and its Apple Pay merchant identifier, and whether Apple Pay in Safari can work yet.
///
/// The request offers shipping methods, asks for a shipping address and takes coupon codes: the page's sheet handlers
/// (`checkout-sheet.js`) price the choices, and their answer for the first method and the page's ship-to address is
/// this request's lines and total, and the order's `payment`.
struct CheckoutPage: Sendable {
    /// What the page names when the merchant has configured no Apple Pay merchant identifier yet.
    static let placeholderMerchantIdentifier = "merchant.com.example"
    /// The goods' price: the sample order's line items, 2 × 18.00 + 6.00.
    static let sampleSubtotal = "42.00"
    /// The sample's total with the first (free) shipping method, in its currency's major unit.
    static let sampleTotal = "42.00"
    static let sampleCurrency = "USD"

    /// An `ApplePayShippingMethod` the sample offers; it arrives `days` after the payment.
    struct ShippingMethod: Sendable {
        let identifier: String
        let label: String
        let detail: String
        let amount: String
        let days: ClosedRange<Int>
    }

    /// Standard first: Apple Pay selects the first method, and it is free, so the prefilled total is the subtotal.
    static let shippingMethods = [
        ShippingMethod(identifier: "standard", label: "Standard Shipping", detail: "Arrives in 5 to 7 days", amount: "0.00", days: 5...7),
        ShippingMethod(identifier: "express", label: "Express Shipping", detail: "Arrives in 1 to 2 days", amount: "12.00", days: 1...2),
    ]

    /// The ship-to countries the page's sheet offers (codes and English names); the shop's handlers ship to some of
    /// them only, so that an address they cannot serve can be tried.
    static let shipToCountries = [
        ("US", "United States"), ("CA", "Canada"), ("MX", "Mexico"), ("GB", "United Kingdom"), ("DE", "Germany"), ("FR", "France"),
        ("JP", "Japan"), ("AU", "Australia"),
    ]
    /// The sheet's ship-to address as the page opens it: the redacted contact Safari hands over (country, postal code).
    static let shipToCountry = "US"
    static let shipToPostalCode = "95014"

    let administration: Administration
    let applePay: ApplePayService

    /// The template's values for `merchant`.
    func values(merchant: MerchantRecord, orderNumber: String, now: Date) async throws -> [String: Any] {
        let orderTypes = try await administration.orderTypes(merchantID: merchant.id).map(\.orderTypeIdentifier).sorted()
        let identity: ApplePayMerchantIdentityRecord?
        do {
            identity = try await applePay.merchantIdentity(merchant: merchant).record
        } catch let error as OrderTrackError where error.code == .applePayNotConfigured {
            identity = nil
        }
        let paymentIdentities = try await applePay.paymentIdentities(merchant: merchant)
        let merchantIdentifier =
            identity?.merchantIdentifier ?? paymentIdentities.first?.merchantIdentifier ?? Self.placeholderMerchantIdentifier
        let label = identity?.displayName ?? merchant.name
        var missing: [(what: String, call: String)] = []
        if identity == nil { missing.append(("a Merchant Identity certificate", "PUT /api/v1/apple_pay/merchant-identity")) }
        if paymentIdentities.isEmpty { missing.append(("a payment processing identity", "POST /api/v1/apple_pay/payment-identities")) }
        // The merchant's default order type first; with a second brand the operator picks one.
        let chosen =
            try await administration.defaultOrderType(merchantID: merchant.id).flatMap { orderTypes.contains($0) ? $0 : nil }
            ?? orderTypes.first
        let order = Self.order(merchantName: merchant.name, merchantIdentifier: merchantIdentifier, orderType: chosen, number: orderNumber)
        return [
            "paymentRequestJSON": Self.paymentRequest(label: label, now: now).serializedString(pretty: true),
            "orderJSON": order.serializedString(pretty: true),
            "merchantIdentifier": merchantIdentifier,
            "hasOrderTypes": !orderTypes.isEmpty,
            "orderTypeChoices": orderTypes.map { ["value": $0, "selected": $0 == chosen] },
            "hasOrderTypeChoices": orderTypes.count > 1,
            "applePayDomains": identity.map { $0.domains.joined(separator: ", ") } ?? false,
            "applePayMissing": missing.enumerated().map { index, item in
                ["what": item.what, "call": item.call, "joiner": index == 0 ? "" : " and "]
            },
            "hasApplePayMissing": !missing.isEmpty,
            "shipToCountries": Self.shipToCountries.map { ["code": $0.0, "name": $0.1, "selected": $0.0 == Self.shipToCountry] },
            "shipToPostalCode": Self.shipToPostalCode,
        ]
    }

    /// An `ApplePayPaymentRequest` (Apple Pay JS, version 13) for the sample order: its shipping methods, with delivery
    /// dates counted from `now`, a shipping address to ask for, coupon codes, and the lines and total of the first method.
    static func paymentRequest(label: String, now: Date) -> JSONValue {
        func line(_ label: String, _ amount: String) -> JSONValue { ["label": .string(label), "amount": .string(amount), "type": "final"] }
        let first = shippingMethods[0]
        return [
            "countryCode": "US", "currencyCode": .string(sampleCurrency), "merchantCapabilities": ["supports3DS"],
            "supportedNetworks": ["visa", "masterCard", "amex", "discover"],
            "requiredShippingContactFields": ["postalAddress", "name", "email"], "shippingType": "shipping",
            "shippingMethods": .array(
                shippingMethods.map { method in
                    [
                        "label": .string(method.label), "detail": .string(method.detail), "amount": .string(method.amount),
                        "identifier": .string(method.identifier),
                        "dateComponentsRange": [
                            "startDateComponents": dateComponents(now, plusDays: method.days.lowerBound),
                            "endDateComponents": dateComponents(now, plusDays: method.days.upperBound),
                        ],
                    ]
                }),
            "supportsCouponCode": true,
            "lineItems": [line("Subtotal", sampleSubtotal), line(first.label, first.amount)],
            "total": line(label, sampleTotal),
        ]
    }

    /// `ApplePayDateComponents` (Gregorian, in UTC) of the day `days` after `date`.
    static func dateComponents(_ date: Date, plusDays days: Int) -> JSONValue {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = calendar.dateComponents([.year, .month, .day], from: calendar.date(byAdding: .day, value: days, to: date) ?? date)
        return ["years": .number(String(day.year ?? 0)), "months": .number(String(day.month ?? 0)), "days": .number(String(day.day ?? 0))]
    }

    /// Order content as a merchant's server sends it at payment completion; the server adds identifiers and dates.
    static func order(merchantName: String, merchantIdentifier: String, orderType: String?, number: String) -> JSONValue {
        func money(_ amount: String) -> JSONValue { ["amount": .string(amount), "currency": .string(sampleCurrency)] }
        var order: JSONValue = [
            "merchant": ["displayName": .string(merchantName), "merchantIdentifier": .string(merchantIdentifier), "url": "https://shop.example.com"],
            "orderManagementURL": .string("https://shop.example.com/orders/\(number)"),
            "orderNumber": .string(number),
            "status": "open",
            "payment": [
                "total": money(sampleTotal), "status": "paid",
                "summaryItems": [
                    ["label": "Subtotal", "value": money(sampleSubtotal)],
                    ["label": .string(shippingMethods[0].label), "value": money(shippingMethods[0].amount)],
                ],
            ],
            "lineItems": [
                ["title": "Coffee beans", "subtitle": "Ethiopia Yirgacheffe, 250 g", "quantity": 2, "price": money("18.00")],
                ["title": "Paper filters", "quantity": 1, "price": money("6.00")],
            ],
            "fulfillments": [["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"]],
        ]
        if let orderType { order["orderTypeIdentifier"] = .string(orderType) }
        return order
    }
}
