import Foundation
import OrderModel
import OrderPersistence

/// What the checkout playground's page starts with: an Apple Pay JS payment request and order content that fit
/// together (the request's total is the order's `payment.total`, which a real checkout checks), for the merchant's
/// first order type and its Apple Pay merchant identifier, and whether Apple Pay in Safari can work yet.
struct CheckoutPage: Sendable {
    /// What the page names when the merchant has configured no Apple Pay merchant identifier yet.
    static let placeholderMerchantIdentifier = "merchant.com.example"
    /// The sample's total, in its currency's major unit.
    static let sampleTotal = "47.50"
    static let sampleCurrency = "USD"

    let administration: Administration
    let applePay: ApplePayService

    /// The template's values for `merchant`.
    func values(merchant: MerchantRecord, orderNumber: String) async throws -> [String: Any] {
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
            "paymentRequestJSON": Self.paymentRequest(label: label).serializedString(pretty: true),
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
        ]
    }

    /// An `ApplePayPaymentRequest` (Apple Pay JS, version 13) for the sample order's total.
    static func paymentRequest(label: String) -> JSONValue {
        [
            "countryCode": "US", "currencyCode": .string(sampleCurrency), "merchantCapabilities": ["supports3DS"],
            "supportedNetworks": ["visa", "masterCard", "amex", "discover"],
            "total": ["label": .string(label), "amount": .string(sampleTotal), "type": "final"],
        ]
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
                "summaryItems": [["label": "Subtotal", "value": money("42.00")], ["label": "Shipping", "value": money("5.50")]],
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
