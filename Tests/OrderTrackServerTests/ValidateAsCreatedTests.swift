import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import Testing

/// `POST /api/v1/orders/validate` judges what `POST /api/v1/orders` would store: the same body, filled as creation
/// fills it (order type, identifier, token, dates, web service URL), in either vocabulary.
@Suite struct ValidateAsCreatedTests {
    static func errors(_ reply: Client.Reply) -> [String] {
        (reply.json["problems"]?.arrayValue ?? []).filter { $0["severity"] == "error" }.map {
            "\($0["path"]?.stringValue ?? ""): \($0["message"]?.stringValue ?? "")"
        }
    }

    @Test func whatACreateAcceptsValidates() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            // The body of the curl the first start prints, and the tests' own.
            let firstStart = try JSONValue.parse(
                Array(
                    #"{"merchant": {"displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com"}, "orderManagementURL": "https://shop.example.com/orders/DEMO-1", "orderNumber": "DEMO-1", "payment": {"total": {"amount": "42.00", "currency": "USD"}, "status": "paid"}, "lineItems": [{"title": "Coffee beans", "quantity": 2, "price": {"amount": "21.00", "currency": "USD"}}], "fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"}]}"#
                        .utf8))
            for body in [firstStart, SampleContent.order] {
                let reply = try await client.merchant(.post, "/api/v1/orders/validate", json: body)
                #expect(reply.status == .ok)
                #expect(reply.json["valid"] == .bool(true), "\(Self.errors(reply))")
                #expect(Self.errors(reply).isEmpty, "\(Self.errors(reply))")
                // And a create of it succeeds, as validation said.
                #expect(try await client.merchant(.post, "/api/v1/orders", json: body).status == .created)
            }

            // The provider's simplified vocabulary, with the merchant's defaults, validates as it creates.
            #expect(try await client.merchant(.put, "/api/v1/order-defaults", json: ProviderCompatibilityTests.defaults).status == .ok)
            let simplified = try await client.merchant(.post, "/api/v1/orders/validate", json: ProviderCompatibilityTests.providerOrder)
            #expect(simplified.json["valid"] == .bool(true), "\(Self.errors(simplified))")
            let warnings = (simplified.json["problems"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            #expect(warnings.contains("lineItems[0].label"), "translation warnings are reported too: \(warnings)")

            // What a create refuses before validating is a problem at its field.
            let badIdentifier = try await client.merchant(
                .post, "/api/v1/orders/validate", json: SampleContent.order.setting("orderIdentifier", to: "has space"))
            #expect(badIdentifier.json["valid"] == .bool(false))
            #expect(badIdentifier.json["problems"]?.arrayValue?.first?["path"] == "orderIdentifier")
            // A real problem is still found, with its path.
            let invalid = try await client.merchant(
                .post, "/api/v1/orders/validate", json: SampleContent.order.setting("status", to: "shipped"))
            #expect(invalid.json["valid"] == .bool(false))
            #expect(Self.errors(invalid).contains { $0.hasPrefix("status:") }, "\(Self.errors(invalid))")
        }
    }
}
