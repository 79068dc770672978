import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import ServerTestSupport
import Testing

/// A second brand breaks nothing: a create that names no order type gets the merchant's default order type (the first
/// one, changeable), however many it has.
@Suite struct DefaultOrderTypeTests {
    @Test func aSecondOrderTypeKeepsCreatesWorkingAndTheDefaultCanChange() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let first = client.credentials.orderTypeIdentifier
            func createdType(_ content: JSONValue = SampleContent.order) async throws -> String? {
                let created = try await client.merchant(.post, "/api/v1/orders", json: content)
                #expect(created.status == .created, "\(created.text)")
                return created.json["orderDetails"]?["orderTypeIdentifier"]?.stringValue
            }
            #expect(try await createdType() == first)

            // The second brand arrives: the same request still works, with the first order type.
            let second = RestrictedKeyTests.otherOrderType
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: client.credentials.merchantID, second)
            #expect(try await createdType() == first)
            let listed = try await client.merchant(.get, "/api/v1/order-types")
            #expect(listed.json["defaultOrderTypeIdentifier"] == .string(first))
            let flags = listed.json["data"]?.arrayValue?.map { ($0["orderTypeIdentifier"]?.stringValue ?? "", $0["default"]) } ?? []
            #expect(flags.count == 2 && flags.allSatisfy { $0.1 == .bool($0.0 == first) }, "\(flags)")

            // Naming one still picks it; the default can change.
            var named = SampleContent.order
            named["orderTypeIdentifier"] = .string(second)
            #expect(try await createdType(named) == second)
            let changed = try await client.merchant(.put, "/api/v1/order-types/\(second)/default")
            #expect(changed.status == .ok, "\(changed.text)")
            #expect(try await createdType() == second)
            #expect(try await client.merchant(.put, "/api/v1/order-types/order.com.example.nobody/default").status == .notFound)

            // Its default deleted, a merchant left with one order type uses that one.
            _ = try await client.store.deleteOrderType(second, merchantID: client.credentials.merchantID, force: true)
            #expect(try await client.store.defaultOrderType(merchantID: client.credentials.merchantID) == nil)
            #expect(try await createdType() == first)
        }
    }

    @Test func severalOrderTypesWithoutADefaultSayHowToChooseOne() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            for type in ["order.com.example.brand.one", "order.com.example.brand.two"] {
                try await RestrictedKeyTests.addOrderType(client, server, merchantID: merchantID, type)
            }
            _ = try await client.store.deleteOrderType(client.credentials.orderTypeIdentifier, merchantID: merchantID, force: true)
            let content = SampleContent.order
            let refused = try await client.merchant(.post, "/api/v1/orders", json: content)
            #expect(refused.status == .badRequest)
            #expect(refused.json["error"]?["code"] == "order_type_required")
            let message = refused.json["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("PUT /api/v1/order-types/{orderTypeIdentifier}/default"), "\(message)")
        }
    }
}

extension DefaultOrderTypeTests {
    /// With a second brand, the dashboard's list names each order's type and filters by it.
    @Test func theOrdersListShowsAndFiltersByOrderType() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let first = client.credentials.orderTypeIdentifier
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let single = try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie])
            #expect(!single.text.contains(#"id="type""#), "one order type: no filter")

            let second = RestrictedKeyTests.otherOrderType
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: client.credentials.merchantID, second)
            let (_, firstID, _) = try await client.createOrder().details
            var other = SampleContent.order
            other["orderTypeIdentifier"] = .string(second)
            let created = try await client.merchant(.post, "/api/v1/orders", json: other)
            let secondID = try #require(created.json["orderDetails"]?["orderIdentifier"]?.stringValue)

            let all = try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie])
            #expect(all.text.contains(#"<select id="type" name="type">"#))
            #expect(all.text.contains(firstID) && all.text.contains(secondID))
            #expect(all.text.contains(#"<div class="sub">\#(second)</div>"#), "each row names its order type")
            let filtered = try await client.call(.get, "/dashboard?type=\(second)", headers: [.cookie: browser.cookie])
            #expect(filtered.text.contains(secondID) && !filtered.text.contains(firstID))
            #expect(filtered.text.contains(#"<option value="\#(second)" selected>"#))
            let firstOnly = try await client.call(.get, "/dashboard?type=\(first)", headers: [.cookie: browser.cookie])
            #expect(firstOnly.text.contains(firstID) && !firstOnly.text.contains(secondID))

            // The order types page marks the default, and only it.
            let types = try await client.call(.get, "/dashboard/order-types", headers: [.cookie: browser.cookie])
            #expect(types.text.components(separatedBy: ">Default</span>").count == 2)
            #expect(types.text.contains(#"\#(first)</span> <span class="badge badge-blue""#))
        }
    }
}

extension DefaultOrderTypeTests {
    /// The checkout playground starts with the default order type and, with a second brand, offers the others.
    @Test func thePlaygroundOffersTheOrderTypes() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let alone = try await client.call(.get, "/dashboard/checkout", headers: [.cookie: browser.cookie])
            #expect(!alone.text.contains(#"<select id="order-type">"#))
            let second = RestrictedKeyTests.otherOrderType
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: client.credentials.merchantID, second)
            #expect(try await client.merchant(.put, "/api/v1/order-types/\(second)/default").status == .ok)
            let page = try await client.call(.get, "/dashboard/checkout", headers: [.cookie: browser.cookie])
            #expect(page.text.contains(#"<select id="order-type">"#))
            #expect(page.text.contains(#"<option value="\#(second)" selected>"#))
            #expect(try CheckoutPlaygroundTests.textarea("order-content", in: page.text)["orderTypeIdentifier"] == .string(second))
        }
    }
}

extension DefaultOrderTypeTests {
    /// Each brand has its own order-management URL: an order type's defaults win over the merchant's, field by field,
    /// on create, on validate and on the fulfillment a PATCH adds.
    @Test func orderDefaultsPerOrderTypeFallBackToTheMerchants() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let first = client.credentials.orderTypeIdentifier
            let second = RestrictedKeyTests.otherOrderType
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: client.credentials.merchantID, second)
            let merchantWide: JSONValue = [
                "orderManagementURL": "https://shop.example.com/orders/{orderNumber}", "fulfillmentType": "shipping", "paymentStatus": "paid",
            ]
            #expect(try await client.merchant(.put, "/api/v1/order-defaults", json: merchantWide).status == .ok)
            let set = try await client.merchant(
                .put, "/api/v1/order-types/\(second)/order-defaults", json: ["orderManagementURL": "https://brand.example.com/o/{orderNumber}"])
            #expect(set.status == .ok, "\(set.text)")
            #expect(set.json["orderTypeIdentifier"] == .string(second))
            #expect(set.json["orderManagementURL"] == "https://brand.example.com/o/{orderNumber}" && set.json["fulfillmentType"] == .null)
            #expect(
                set.json["effective"]
                    == ["orderManagementURL": "https://brand.example.com/o/{orderNumber}", "fulfillmentType": "shipping", "paymentStatus": "paid"])
            #expect(try await client.merchant(.get, "/api/v1/order-types/\(second)/order-defaults").json == set.json)
            let untouched = try await client.merchant(.get, "/api/v1/order-types/\(first)/order-defaults")
            #expect(untouched.json["orderManagementURL"] == .null && untouched.json["effective"] == merchantWide)

            // The simplified form without a management URL, once per brand.
            func simplified(_ type: String, number: String) -> JSONValue {
                var order = ProviderCompatibilityTests.providerOrder
                order["order"]?["orderIdentifier"] = .string("order-\(number)")
                order["order"]?["orderNumber"] = .string(number)
                order["order"]?["orderTypeIdentifier"] = .string(type)
                return order
            }
            let brand = try await client.merchant(.post, "/api/v1/orders", json: simplified(second, number: "B-1"))
            #expect(brand.status == .created, "\(brand.text)")
            #expect(brand.json["order"]?["orderManagementURL"] == "https://brand.example.com/o/B-1")
            #expect(brand.json["order"]?["fulfillments"]?.arrayValue?.first?["fulfillmentType"] == "shipping", "inherited from the merchant")
            let shop = try await client.merchant(.post, "/api/v1/orders", json: simplified(first, number: "S-1"))
            #expect(shop.json["order"]?["orderManagementURL"] == "https://shop.example.com/orders/S-1", "\(shop.text)")
            let validated = try await client.merchant(.post, "/api/v1/orders/validate", json: simplified(second, number: "B-2"))
            #expect(validated.json["valid"] == true, "\(validated.text)")

            // A template may name the identifier the create generates.
            let tracking = try await client.merchant(
                .put, "/api/v1/order-types/\(first)/order-defaults", json: ["orderManagementURL": "https://shop.example.com/track/{orderIdentifier}"])
            #expect(tracking.status == .ok)
            var anonymous = ProviderCompatibilityTests.providerOrder
            anonymous["order"]?["orderIdentifier"] = nil
            let generated = try await client.merchant(.post, "/api/v1/orders", json: anonymous)
            let generatedID = try #require(generated.json["orderDetails"]?["orderIdentifier"]?.stringValue, "\(generated.text)")
            #expect(generated.json["order"]?["orderManagementURL"] == .string("https://shop.example.com/track/\(generatedID)"))

            // A type's own fulfillment type fills the fulfillment a PATCH adds without one.
            #expect(
                try await client.merchant(.put, "/api/v1/order-types/\(second)/order-defaults", json: ["fulfillmentType": "pickup"]).status == .ok)
            let added = try await client.merchant(
                .patch, "/api/v1/orders/\(second)/order-B-1",
                json: ["fulfillments": [["fulfillmentIdentifier": "pickup-1", "status": "open", "displayName": "Main Street store"]]])
            #expect(added.status == .ok, "\(added.text)")
            let fulfillments = added.json["order"]?["fulfillments"]?.arrayValue ?? []
            #expect(fulfillments.first { $0["fulfillmentIdentifier"] == "pickup-1" }?["fulfillmentType"] == "pickup", "\(added.text)")

            // Only the merchant's own order types, and only those a restricted key may touch.
            let unknown = try await client.merchant(.put, "/api/v1/order-types/order.com.example.nobody/order-defaults", json: [:])
            #expect(unknown.status == .notFound && unknown.json["error"]?["message"]?.stringValue?.contains("no order type") == true)
            #expect(try await client.merchant(.get, "/api/v1/order-types/order.com.example.nobody/order-defaults").status == .notFound)
            let limited = try await RestrictedKeyTests.createKey(
                client, ["name": "brand one", "scopes": ["order-defaults:read", "order-defaults:write"], "orderTypeIdentifiers": [.string(first)]])
            #expect(try await RestrictedKeyTests.call(client, limited.secret, .get, "/api/v1/order-types/\(first)/order-defaults").status == .ok)
            #expect(
                try await RestrictedKeyTests.call(client, limited.secret, .get, "/api/v1/order-types/\(second)/order-defaults").status == .forbidden)

            // Deleting the order type deletes its defaults.
            _ = try await client.store.deleteOrderType(second, merchantID: client.credentials.merchantID, force: true)
            #expect(try await client.store.orderDefaults(merchantID: client.credentials.merchantID, orderTypeIdentifier: second).count == 1)
        }
    }
}
