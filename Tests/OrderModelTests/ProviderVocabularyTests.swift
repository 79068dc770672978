import OrderModel
import Testing

@Suite struct ProviderVocabularyTests {
    static let defaults = ProviderVocabulary.Defaults(
        orderManagementURL: "https://shop.example.com/orders", fulfillmentType: "shipping", paymentStatus: "paid")

    static let simplified: JSONValue = [
        "orderTypeIdentifier": "order.com.example.shop", "orderIdentifier": "ORDER-1", "schemaVersion": 1, "orderType": "ecommerce",
        "createdAt": "2024-01-01T12:00:00Z", "updatedAt": "2024-01-01T12:00:00Z", "status": "in_progress",
        "authenticationToken": "0123456789abcdef0123456789abcdef", "webServiceURL": "https://orders.example.com/wallet",
        "merchant": ["merchantIdentifier": "merchant.com.example", "displayName": "Example Store", "url": "https://example.com"],
        "lineItems": [["label": "Blue T-Shirt (M)", "quantity": 2, "price": "29.99", "currencyCode": "USD"]],
        "total": ["label": "Total", "price": "59.98", "currencyCode": "USD"],
        "fulfillments": [["fulfillmentIdentifier": "SHIP-001", "status": "open", "trackingNumber": "", "trackingUrl": "https://carrier.example/1"]],
    ]

    @Test func eachSimplifiedFormBecomesApplesWithAWarningAtItsPath() throws {
        let translation = ProviderVocabulary.translate(Self.simplified, defaults: Self.defaults)
        #expect(translation.errors.isEmpty)
        let order = translation.document
        #expect(order["status"] == "open")
        #expect(order["lineItems"] == [["title": "Blue T-Shirt (M)", "quantity": 2, "price": ["amount": .number("29.99"), "currency": "USD"]]])
        #expect(order["payment"] == ["total": ["amount": .number("59.98"), "currency": "USD"], "status": "paid"])
        #expect(order["total"] == nil)
        #expect(order["orderManagementURL"] == "https://shop.example.com/orders")
        #expect(
            order["fulfillments"] == [
                [
                    "fulfillmentIdentifier": "SHIP-001", "fulfillmentType": "shipping", "status": "processing",
                    "trackingURL": "https://carrier.example/1",
                ]
            ])
        let warnings = Dictionary(uniqueKeysWithValues: translation.warnings.map { ($0.path, $0.message) })
        #expect(warnings["status"] == "\"in_progress\" was read as \"open\", and each open fulfillment as \"processing\"")
        #expect(warnings["lineItems[0].label"] == "was read as \"title\"")
        #expect(warnings["lineItems[0].price"] == "\"29.99\" with currencyCode \"USD\" was read as {\"amount\": 29.99, \"currency\": \"USD\"}")
        #expect(warnings["total"] == "was read as \"payment.total\"")
        #expect(warnings["fulfillments[0].trackingNumber"] == "an empty string was left out")
        #expect(warnings["fulfillments[0].trackingUrl"] == "was read as \"trackingURL\"")
        #expect(warnings["fulfillments[0].fulfillmentType"] == "missing, so the merchant's default \"shipping\" was used")
        #expect(translation.warnings.allSatisfy { $0.severity == .warning })
        #expect(OrderValidator.validate(document: order).isValid, "\(OrderValidator.validate(document: order).problems)")
    }

    @Test func fulfilledIsCompletedAndTheWrapperIsOpened() {
        let translation = ProviderVocabulary.translate(
            ["order": ["status": "fulfilled", "orderManagementURL": "https://x.example/o"]], defaults: .init())
        #expect(translation.document == ["status": "completed", "orderManagementURL": "https://x.example/o"])
        #expect(translation.warnings.map(\.path) == ["order", "status"])
        #expect(
            translation.warnings.last?.message
                == "\"fulfilled\" was read as \"completed\", and each unfinished fulfillment as delivered or picked up")
    }

    /// An order "fulfilled" finishes its unfinished fulfillments, so Wallet never shows "Completed" above "Processing".
    @Test func fulfilledFinishesTheFulfillmentsAndInProgressIsReadOnFulfillmentsToo() {
        let fulfillments: JSONValue = [
            ["fulfillmentIdentifier": "a", "fulfillmentType": "shipping", "status": "onTheWay"],
            ["fulfillmentIdentifier": "b", "fulfillmentType": "pickup", "status": "readyForPickup"],
            ["fulfillmentIdentifier": "c", "fulfillmentType": "shipping", "status": "cancelled"],
            ["fulfillmentIdentifier": "d", "fulfillmentType": "shipping", "status": "in_progress"],
        ]
        let done = ProviderVocabulary.translate(["status": "fulfilled", "fulfillments": fulfillments], defaults: Self.defaults)
        #expect(
            done.document["fulfillments"]?.arrayValue?.compactMap { $0["status"]?.stringValue } == [
                "delivered", "pickedUp", "cancelled", "processing",
            ])
        // A fulfillment's own simplified status, with no simplified order status, is translated (not refused).
        let own = ProviderVocabulary.translate(
            ["status": "open", "fulfillments": [["fulfillmentIdentifier": "a", "fulfillmentType": "pickup", "status": "in_progress"]]],
            defaults: Self.defaults)
        #expect(own.errors.isEmpty)
        #expect(own.document["fulfillments"]?.arrayValue?.first?["status"] == "processing")
        #expect(own.warnings.contains { $0.path == "fulfillments[0].status" && $0.message == "\"in_progress\" was read as \"processing\"" })
    }

    @Test func theManagementURLDefaultMayBeATemplate() {
        let defaults = ProviderVocabulary.Defaults(
            orderManagementURL: "https://shop.example.com/orders/{orderNumber}", fulfillmentType: "shipping", paymentStatus: "paid")
        let filled = ProviderVocabulary.translate(["status": "in_progress", "orderNumber": "A 1/2"], defaults: defaults)
        #expect(filled.document["orderManagementURL"] == "https://shop.example.com/orders/A%201%2F2")
        let lacking = ProviderVocabulary.translate(["status": "in_progress"], defaults: defaults)
        #expect(lacking.errors.map(\.path) == ["orderManagementURL"])
        #expect(lacking.errors.first?.message.contains("needs the order's orderNumber") == true)
    }

    /// Defaults fill what an order in Apple's vocabulary lacks too, each with a warning.
    @Test func defaultsApplyToAppleDocuments() {
        let apple: JSONValue = [
            "status": "open", "payment": ["total": ["amount": .number("1"), "currency": "USD"]],
            "fulfillments": [["fulfillmentIdentifier": "a", "status": "processing"]],
        ]
        #expect(!ProviderVocabulary.isSimplified(apple))
        let translation = ProviderVocabulary.translate(apple, defaults: Self.defaults)
        #expect(translation.document["orderManagementURL"] == "https://shop.example.com/orders")
        #expect(translation.document["fulfillments"]?.arrayValue?.first?["fulfillmentType"] == "shipping")
        #expect(translation.document["payment"]?["status"] == "paid")
        #expect(Set(translation.warnings.map(\.path)) == ["orderManagementURL", "fulfillments[0].fulfillmentType", "payment.status"])
    }

    @Test func whatNoDefaultFillsIsAnErrorNamingTheField() {
        let translation = ProviderVocabulary.translate(Self.simplified, defaults: .init())
        #expect(Set(translation.errors.map(\.path)) == ["orderManagementURL", "payment.status", "fulfillments[0].fulfillmentType"])
        #expect(translation.errors.allSatisfy { $0.severity == .error && $0.message.hasPrefix("required by Wallet") })
    }

    /// Under schemaVersion 2 the deprecated payment.status is optional: no default is needed, and none is added.
    @Test func schemaVersionTwoNeedsNoPaymentStatus() {
        var order = Self.simplified
        order["schemaVersion"] = 2
        let withoutDefault = ProviderVocabulary.translate(
            order, defaults: ProviderVocabulary.Defaults(orderManagementURL: "https://shop.example.com/orders", fulfillmentType: "shipping"))
        #expect(withoutDefault.errors.isEmpty, "\(withoutDefault.errors)")
        #expect(withoutDefault.document["payment"] == ["total": ["amount": .number("59.98"), "currency": "USD"]])
        #expect(ProviderVocabulary.translate(order, defaults: Self.defaults).document["payment"]?["status"] == nil)
        #expect(OrderValidator.validate(document: withoutDefault.document).isValid)
        // Version 1 still needs it.
        let one = ProviderVocabulary.translate(
            Self.simplified, defaults: ProviderVocabulary.Defaults(orderManagementURL: "https://shop.example.com/orders"))
        #expect(one.errors.contains { $0.path == "payment.status" })
    }

    @Test func pricesMustBeDecimalsWithACurrency() {
        let translation = ProviderVocabulary.translate(
            ["total": ["price": "abc", "currencyCode": "USD"], "lineItems": [["title": "Tea", "quantity": 1, "price": "3.50"]]],
            defaults: Self.defaults)
        #expect(Set(translation.errors.map(\.path)) == ["total.price", "lineItems[0].currencyCode"])
    }

    @Test func appleDocumentsAreReturnedByteForByte() throws {
        let bytes = Array(Fixtures.fullOrder.serialized())
        #expect(!ProviderVocabulary.isSimplified(Fixtures.fullOrder))
        let translation = ProviderVocabulary.translate(try JSONValue.parse(bytes), defaults: Self.defaults)
        #expect(translation.warnings.isEmpty && translation.errors.isEmpty)
        #expect(translation.document.serialized() == bytes)
    }
}
