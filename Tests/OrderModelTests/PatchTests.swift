import OrderModel
import Testing

@Suite struct PatchTests {
    @Test func mergesObjectsAndRemovesNulls() throws {
        let patched = try OrderPatch.apply(["status": "completed", "barcode": nil, "merchant": ["phoneNumber": "+1 555"]], to: Fixtures.fullOrder)
        #expect(patched["status"] == "completed")
        #expect(patched["barcode"] == nil)
        #expect(patched["merchant"]?["phoneNumber"] == "+1 555")
        #expect(patched["merchant"]?["displayName"] == "Example Shop", "untouched keys stay")
        #expect(OrderValidator.validate(document: patched).isValid)
    }

    @Test func mergesFulfillmentsByIdentifier() throws {
        let patch: JSONValue = [
            "fulfillments": [
                ["fulfillmentIdentifier": "pick-1", "status": "pickedUp", "notes": nil],
                ["fulfillmentIdentifier": "ship-2", "fulfillmentType": "shipping", "status": "processing"],
            ]
        ]
        let patched = try OrderPatch.apply(patch, to: Fixtures.fullOrder)
        let fulfillments = try #require(patched["fulfillments"]?.arrayValue)
        #expect(fulfillments.count == 3)
        #expect(fulfillments[0] == Fixtures.fullOrder["fulfillments"]?.arrayValue?[0], "other fulfillments are untouched")
        #expect(fulfillments[1]["status"] == "pickedUp" && fulfillments[1]["notes"] == nil && fulfillments[1]["displayName"] == "Main Street store")
        #expect(fulfillments[2]["fulfillmentIdentifier"] == "ship-2")
        #expect(OrderValidator.validate(document: patched).isValid)
    }

    @Test func replacesPlainArraysAndMergesReturnsByIdentifier() throws {
        let patched = try OrderPatch.apply(
            ["lineItems": [["title": "Tea", "quantity": 1]], "returns": [["returnIdentifier": "ret-1", "status": "completed"]]],
            to: Fixtures.fullOrder)
        #expect(patched["lineItems"]?.arrayValue?.count == 1)
        #expect(patched["returns"]?.arrayValue?[0]["status"] == "completed" && patched["returns"]?.arrayValue?[0]["carrier"] == "UPS")
    }

    @Test func refusesToChangeIdentity() {
        for key in ["orderIdentifier", "authenticationToken", "createdAt", "webServiceURL"] {
            #expect(
                throws: OrderPatchError(
                    path: key, message: "cannot be changed by a patch (\(key) is fixed when the order is created or set by the server)")
            ) {
                try OrderPatch.apply([key: "changed-value-1234567890"], to: Fixtures.fullOrder)
            }
        }
        #expect(throws: OrderPatchError.self) { try OrderPatch.apply(["fulfillments": [["status": "delivered"]]], to: Fixtures.fullOrder) }
        #expect(throws: OrderPatchError.self) { try OrderPatch.apply([1, 2], to: Fixtures.fullOrder) }
        #expect(throws: Never.self) { try OrderPatch.apply(["orderIdentifier": "ORD-1001"], to: Fixtures.fullOrder) }
    }
}
