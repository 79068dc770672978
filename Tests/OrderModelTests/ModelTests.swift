import Foundation
import OrderModel
import TestSupport
import Testing

@Suite struct ModelTests {
    @Test func decodesEveryObjectOfTheFullOrder() throws {
        let document = try OrderDocument(json: Fixtures.fullOrder)
        let order = document.order
        #expect(order.status == .open)
        #expect(order.merchant.address?.countryCode == "US")
        #expect(order.payment?.total.amount == Decimal(25))
        #expect(order.lineItems?.first?.price?.amount == Decimal(string: "12.5"))
        #expect(order.payment?.transactions?.first?.transactionType == .purchase)
        guard case .shipping(let shipping) = order.fulfillments?[0], case .pickup(let pickup) = order.fulfillments?[1] else {
            Issue.record("fulfillments decoded as the wrong kinds")
            return
        }
        #expect(shipping.status == .onTheWay && shipping.recipient?.familyName == "Lovelace")
        #expect(pickup.status == .readyForPickup && pickup.location?.latitude == 37.33)
        #expect(order.returns?.first?.status == .processing)
        #expect(order.orderProvider?.trackingLogoNameDarkColorScheme == "provider-dark.png")
        #expect(order.updatedAt == DateTimeFormat.parseRFC3339("2026-11-21T07:30:00.125Z"))
    }

    @Test func amountsAreExactAndNormalizedToMinorUnits() throws {
        let document = try OrderDocument(
            json: Fixtures.fullOrder
                .setting("payment.total", to: ["amount": "0.30", "currency": "USD"])
                .setting("lineItems.0.price", to: ["amount": .number("0.1"), "currency": "USD"]))
        #expect(document.order.payment?.total.amount == Decimal(string: "0.3"))
        #expect(document.json["payment"]?["total"]?["amount"] == .number("0.30"))
        #expect(document.json["lineItems"]?.arrayValue?[0]["price"]?["amount"] == .number("0.10"))
        #expect(document.json["payment"]?["total"]?["amount"]?.serializedString() == "0.30")
        let yen = try OrderDocument(
            json: Fixtures.minimalOrder.setting("payment", to: ["total": ["amount": "1500.00", "currency": "JPY"], "status": "paid"]))
        #expect(yen.json["payment"]?["total"]?["amount"] == .number("1500"))
    }

    @Test func unknownKeysSurviveTypedUpdates() throws {
        let source = Fixtures.fullOrder
            .setting("loyalty", to: ["points": 120])
            .setting("fulfillments.1.lockerCode", to: "A7")
            .setting("merchant.tagline", to: "Fresh")
        var document = try OrderDocument(json: source)
        document.update { order in
            order.status = .completed
            order.fulfillments?.swapAt(0, 1)
            order.merchant.displayName = "Renamed Shop"
        }
        #expect(document.json["loyalty"] == ["points": 120])
        #expect(document.json["merchant"]?["tagline"] == "Fresh")
        #expect(document.json["merchant"]?["displayName"] == "Renamed Shop")
        #expect(document.json["status"] == "completed")
        // The unknown key follows its fulfillment by identifier, not by position.
        let fulfillments = try #require(document.json["fulfillments"]?.arrayValue)
        #expect(fulfillments[0]["fulfillmentIdentifier"] == "pick-1" && fulfillments[0]["lockerCode"] == "A7")
        #expect(fulfillments[1]["lockerCode"] == nil)
        #expect(OrderValidator.validate(document: document.json).isValid)
    }

    @Test func removedKnownKeysStayRemoved() throws {
        var document = try OrderDocument(json: Fixtures.fullOrder)
        document.update { $0.barcode = nil }
        #expect(document.json["barcode"] == nil)
    }

    @Test func typedOrderRoundTripsThroughJSON() throws {
        var order = Order(
            orderTypeIdentifier: "order.com.example.shop", orderIdentifier: "A-1", createdAt: Date(timeIntervalSince1970: 1_790_000_000.5),
            status: .open,
            merchant: Merchant(displayName: "Shop", merchantIdentifier: "merchant.com.example", url: URL(string: "https://example.com")!),
            orderManagementURL: URL(string: "https://example.com/orders/A-1")!)
        order.payment = Payment(total: CurrencyAmount(amount: Decimal(string: "19.9")!, currency: "EUR"), status: .paid)
        order.fulfillments = [.shipping(ShippingFulfillment(fulfillmentIdentifier: "s1", status: .shipped, carrier: "DHL"))]
        let document = OrderDocument(order: order)
        #expect(OrderValidator.validate(document: document.json).isValid, "\(Fixtures.problems(OrderValidator.validate(document: document.json)))")
        #expect(document.json["payment"]?["total"]?["amount"] == .number("19.90"))
        #expect(document.json["createdAt"] == "2026-09-21T14:13:20.500Z")
        let decoded = try OrderDocument(bytes: document.bytes)
        #expect(decoded.order == order)
    }

    @Test func schemaAndModelDescribeTheSameKeys() throws {
        // Every key of the full fixture decodes into the model and encodes back: nothing known is dropped.
        let document = try OrderDocument(json: Fixtures.fullOrder)
        let reencoded = OrderDocument(order: document.order).json
        #expect(keyPaths(reencoded) == keyPaths(document.json))
        // And the fixture covers every property the schema declares.
        #expect(Set(OrderSchema.order.properties.map(\.name)) == Set(document.json.objectValue!.keys))
    }

    @Test func decodingAnInvalidDocumentListsEveryError() {
        #expect {
            try OrderDocument(json: Fixtures.minimalOrder.setting("status", to: "shipped").setting("createdAt", to: "yesterday"))
        } throws: { error in
            let report = (error as? OrderDecodingError)?.report
            return report?.errors.map(\.path).sorted() == ["createdAt", "status"]
        }
    }

    @Test func publishesAJSONSchema() throws {
        let schema = OrderSchema.jsonSchema()
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        let definitions = try #require(schema["$defs"]?.objectValue)
        for name in [
            "Merchant", "Address", "LineItem", "Payment", "PaymentTransaction", "ShippingFulfillment", "PickupFulfillment", "Return", "ReturnInfo",
            "OrderProvider", "CurrencyAmount", "Barcode", "Location", "Application", "Customer", "SummaryItem", "PaymentMethod", "Recipient",
        ] {
            #expect(definitions[name] != nil, "missing $defs/\(name)")
        }
        #expect(schema["required"]?.arrayValue?.count == 9)
    }

    /// Checks the generated schema with an independent implementation (Python's jsonschema).
    @Test(.enabled(if: ExternalTools.pythonHasModule("jsonschema"), "needs Python's jsonschema (scripts/python-env)"))
    func pythonJSONSchemaAcceptsTheSchemaAndTheFullOrder() throws {
        try expectPythonJSONSchemaAccepts(schema: OrderSchema.jsonSchema(), document: Fixtures.fullOrder)
    }

    /// The published schema's schemaVersion rule, judged independently: a version-2 order may leave payment.status
    /// out, a version-1 order may not.
    @Test(.enabled(if: ExternalTools.pythonHasModule("jsonschema"), "needs Python's jsonschema (scripts/python-env)"))
    func pythonJSONSchemaJudgesPaymentStatusByVersion() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let withoutStatus = Fixtures.minimalOrder.setting("payment", to: ["total": ["amount": 42, "currency": "USD"]])
        try Data(OrderSchema.jsonSchema().serialized()).write(to: directory.appendingPathComponent("schema.json"))
        try Data(withoutStatus.setting("schemaVersion", to: 2).serialized()).write(to: directory.appendingPathComponent("two.json"))
        try Data(withoutStatus.serialized()).write(to: directory.appendingPathComponent("one.json"))
        let script = """
            import json, jsonschema
            v = jsonschema.Draft202012Validator(json.load(open("schema.json")))
            assert not list(v.iter_errors(json.load(open("two.json")))), list(v.iter_errors(json.load(open("two.json"))))
            assert [e.message for e in v.iter_errors(json.load(open("one.json")))] == ["'status' is a required property"]
            print("ok")
            """
        #expect(String(decoding: try ExternalTools.python(script, in: directory), as: UTF8.self) == "ok\n")
        #expect(OrderValidator.validate(document: withoutStatus.setting("schemaVersion", to: 2)).isValid)
        #expect(!OrderValidator.validate(document: withoutStatus).isValid, "the validator agrees")
    }

    func expectPythonJSONSchemaAccepts(schema: JSONValue, document: JSONValue) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(schema.serialized()).write(to: directory.appendingPathComponent("schema.json"))
        try Data(document.serialized()).write(to: directory.appendingPathComponent("order.json"))
        try Data(Fixtures.minimalOrder.setting("status", to: "shipped").serialized()).write(to: directory.appendingPathComponent("bad.json"))
        let script = """
            import json, jsonschema
            schema = json.load(open("schema.json"))
            jsonschema.Draft202012Validator.check_schema(schema)
            v = jsonschema.Draft202012Validator(schema)
            assert not list(v.iter_errors(json.load(open("order.json")))), list(v.iter_errors(json.load(open("order.json"))))
            assert list(v.iter_errors(json.load(open("bad.json"))))
            print("ok")
            """
        let output = String(decoding: try ExternalTools.python(script, in: directory), as: UTF8.self)
        #expect(output == "ok\n")
    }

    func keyPaths(_ value: JSONValue, prefix: String = "") -> Set<String> {
        switch value {
        case .object(let members):
            members.reduce(into: Set<String>()) { result, member in
                result.insert(prefix + member.key)
                result.formUnion(keyPaths(member.value, prefix: prefix + member.key + "."))
            }
        case .array(let elements):
            elements.enumerated().reduce(into: Set<String>()) { $0.formUnion(keyPaths($1.element, prefix: prefix + "\($1.offset).")) }
        default: []
        }
    }
}
