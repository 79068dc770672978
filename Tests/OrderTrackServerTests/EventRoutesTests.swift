import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import ServerTestSupport
import Testing

@testable import OrderTrackServer

/// The events API (#32): each change through the API logs its events once, listed newest first in pages, one type
/// at a time, each merchant its own.
@Suite struct EventRoutesTests {
    /// Every event of the development merchant, newest first, following the cursors `limit` at a time.
    static func allEvents(_ client: Client, query: String = "", limit: Int = 2) async throws -> [JSONValue] {
        var events: [JSONValue] = []
        var cursor: String?
        repeat {
            let after = cursor.map { "&after=\($0)" } ?? ""
            let page = try await client.merchant(.get, "/api/v1/events?limit=\(limit)\(query)\(after)")
            #expect(page.status == .ok, "\(page.text)")
            let data = try #require(page.json["data"]?.arrayValue)
            #expect(data.count <= limit)
            events += data
            cursor = page.json["nextCursor"]?.stringValue
        } while cursor != nil
        return events
    }

    @Test func changesAreListedNewestFirstOncePerCauseAndByType() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let first = try await client.createOrder()
            _ = try await client.createOrder()
            let delivered: JSONValue = ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "delivered"]]]
            #expect(try await client.merchant(.patch, first.path, json: delivered).json["changed"] == true)
            #expect(try await client.merchant(.patch, first.path, json: delivered).json["changed"] == false, "a PATCH that changes nothing")
            let registration = "/wallet/v1/devices/device-E/registrations/\(first.type)/\(first.id)"
            let pushToken: JSONValue = ["pushToken": .string(String(repeating: "ab", count: 32))]
            #expect(try await client.device(.post, registration, token: first.token, json: pushToken).status == .created)
            #expect(try await client.device(.post, registration, token: first.token, json: pushToken).status == .ok)
            #expect(try await client.device(.delete, registration, token: first.token).status == .ok)

            let events = try await Self.allEvents(client)
            #expect(
                events.map { $0["type"]?.stringValue ?? "" } == [
                    "order.wallet_removed", "order.wallet_added", "fulfillment.delivered", "order.updated", "order.created", "order.created",
                ])
            #expect(Set(events.compactMap { $0["id"]?.stringValue }).count == events.count)
            let update = events[3]
            #expect(update["data"]?["orderIdentifier"]?.stringValue == first.id)
            #expect(update["data"]?["changedPaths"]?.arrayValue?.contains("/fulfillments/0/status") == true, "\(update)")
            #expect(update["data"]?["actor"]?["channel"] == "merchant API")
            #expect(events[2]["data"]?["fulfillmentIdentifier"] == "ship-1" && events[2]["data"]?["previousFulfillmentStatus"] == "processing")
            #expect(events.allSatisfy { $0["createdAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339) != nil })

            let created = try await Self.allEvents(client, query: "&type=order.created", limit: 100)
            #expect(created.count == 2 && created.allSatisfy { $0["type"] == "order.created" })

            let id = try #require(events[0]["id"]?.stringValue)
            let one = try await client.merchant(.get, "/api/v1/events/\(id)")
            #expect(one.status == .ok && one.json == events[0])
        }
    }

    @Test func merchantsSeeOnlyTheirOwnEventsAndKeysNeedTheScope() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            _ = try await client.createOrder()
            let id = try #require(try await client.merchant(.get, "/api/v1/events").json["data"]?.arrayValue?.first?["id"]?.stringValue)

            let (_, otherKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let theirs = try await RestrictedKeyTests.call(client, otherKey, .get, "/api/v1/events")
            #expect(theirs.status == .ok && theirs.json["data"] == [] && theirs.json["nextCursor"] == .null)
            #expect(try await RestrictedKeyTests.call(client, otherKey, .get, "/api/v1/events/\(id)").status == .notFound)
            #expect(try await client.merchant(.get, "/api/v1/events/evt_000000000000000000000000").status == .notFound)

            let orders = try await RestrictedKeyTests.createKey(client, ["name": "orders", "scopes": ["orders:write"]])
            let refused = try await RestrictedKeyTests.call(client, orders.secret, .get, "/api/v1/events")
            #expect(refused.status == .forbidden && RestrictedKeyTests.error(refused).code == "scope_missing")
            #expect(RestrictedKeyTests.error(refused).message.contains("\"events:read\""))
            #expect(try await RestrictedKeyTests.call(client, orders.secret, .get, "/api/v1/events/\(id)").status == .forbidden)
            let reader = try await RestrictedKeyTests.createKey(client, ["name": "events", "scopes": ["events:read"]])
            #expect(try await RestrictedKeyTests.call(client, reader.secret, .get, "/api/v1/events/\(id)").status == .ok)
        }
    }

    @Test func badParametersAreRefusedNamingTheParameter() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let ordersCursor = try #require(
                try await { () async throws -> String? in
                    _ = try await client.createOrder()
                    _ = try await client.createOrder()
                    return try await client.merchant(.get, "/api/v1/orders?limit=1").json["nextCursor"]?.stringValue
                }())
            for (query, param) in [
                ("limit=0", "limit"), ("limit=101", "limit"), ("limit=ten", "limit"), ("type=order.deleted", "type"), ("after=nonsense", "after"),
                ("after=\(ordersCursor)", "after"),
            ] {
                let reply = try await client.merchant(.get, "/api/v1/events?\(query)")
                #expect(reply.status == .badRequest, "\(query): \(reply.text)")
                #expect(reply.json["error"]?["param"] == .string(param), "\(query): \(reply.text)")
            }
        }
    }
}
