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
        #expect(translation.warnings.last?.message == "\"fulfilled\" was read as \"completed\"")
    }

    @Test func whatNoDefaultFillsIsAnErrorNamingTheField() {
        let translation = ProviderVocabulary.translate(Self.simplified, defaults: .init())
        #expect(Set(translation.errors.map(\.path)) == ["orderManagementURL", "payment.status", "fulfillments[0].fulfillmentType"])
        #expect(translation.errors.allSatisfy { $0.severity == .error && $0.message.hasPrefix("required by Wallet") })
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
