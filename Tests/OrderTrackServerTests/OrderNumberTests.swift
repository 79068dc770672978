import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import Testing

/// Order numbers identify orders within an order type, as a shop's numbers do: a second order with a number is 409
/// naming the first, merchants find an order by its number, and a second order type has numbers of its own.
@Suite struct OrderNumberTests {
    @Test func aNumberIsTakenOncePerOrderTypeAndFindsItsOrder() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let type = client.credentials.orderTypeIdentifier
            let number = SampleContent.uniqueNumber()
            let first = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order(number: number))
            #expect(first.status == .created)
            let firstID = try #require(first.json["orderDetails"]?["orderIdentifier"]?.stringValue)

            var again = SampleContent.order(number: number)
            again["orderTypeIdentifier"] = .string(type)
            let refused = try await client.merchant(.post, "/api/v1/orders", json: again)
            #expect(refused.status == .conflict)
            #expect(refused.json["error"]?["code"] == "order_number_exists")
            #expect(refused.json["error"]?["param"] == "orderNumber")
            #expect(refused.json["error"]?["existingOrderIdentifier"] == .string(firstID))
            #expect(refused.json["error"]?["message"]?.stringValue?.contains(firstID) == true)

            // Found by the merchant's own number.
            let found = try await client.merchant(.get, "/api/v1/orders?orderNumber=\(number)")
            #expect(found.status == .ok)
            #expect(found.json["data"]?.arrayValue?.compactMap { $0["orderIdentifier"]?.stringValue } == [firstID])
            #expect(try await client.merchant(.get, "/api/v1/orders?orderNumber=nobody").json["data"] == .array([]))

            // Renumbering another order onto it is refused too; keeping its own number is not.
            let second = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            let secondID = try #require(second.json["orderDetails"]?["orderIdentifier"]?.stringValue)
            let renumber = try await client.merchant(.patch, "/api/v1/orders/\(type)/\(secondID)", json: ["orderNumber": .string(number)])
            #expect(renumber.status == .conflict)
            #expect(renumber.json["error"]?["existingOrderIdentifier"] == .string(firstID))
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/\(firstID)", json: ["status": "completed"]).status == .ok)

            // Another order type (a second brand) has numbers of its own.
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: client.credentials.merchantID, RestrictedKeyTests.otherOrderType)
            var otherBrand = SampleContent.order(number: number)
            otherBrand["orderTypeIdentifier"] = .string(RestrictedKeyTests.otherOrderType)
            let other = try await client.merchant(.post, "/api/v1/orders", json: otherBrand)
            #expect(other.status == .created, "\(other.text)")
            let both = try await client.merchant(.get, "/api/v1/orders?orderNumber=\(number)")
            #expect(both.json["data"]?.arrayValue?.count == 2)
        }
    }

    /// Concurrent creations with one number: exactly one is stored (SQLite's single writer; a transaction lock on the
    /// number on PostgreSQL).
    @Test func concurrentCreationsWithOneNumberStoreOneOrder() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let number = SampleContent.uniqueNumber()
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order(number: number)).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == .conflict }.count == 7, "\(statuses)")
            #expect(try await client.merchant(.get, "/api/v1/orders?orderNumber=\(number)").json["data"]?.arrayValue?.count == 1)
        }
    }
}
