import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackServer

/// `POST /api/v1/orders/bulk`: a warehouse's day in one request, each line judged as the PATCH it stands for.
@Suite(.serialized) struct BulkUpdateTests {
    static func bulk(_ client: Client, _ lines: [String], key: String? = nil) async throws -> (Client.Reply, [Int: JSONValue]) {
        var headers: HTTPFields = [.contentType: "application/x-ndjson", .authorization: "Bearer \(key ?? client.apiKey)"]
        headers[.accept] = "application/x-ndjson"
        let reply = try await client.call(.post, "/api/v1/orders/bulk", headers: headers, body: Array(lines.joined(separator: "\n").utf8))
        var results: [Int: JSONValue] = [:]
        guard reply.status == .ok else { return (reply, results) }
        for line in reply.text.split(separator: "\n") {
            let value = try JSONValue.parse(Array(line.utf8))
            let number = try #require(value["line"]?.numberLiteral.flatMap { Int($0) })
            #expect(results[number] == nil, "one result per line")
            results[number] = value
        }
        return (reply, results)
    }

    static func json(_ value: JSONValue) -> String { value.serializedString() }

    @Test func eachLineAppliesAsItsPatchAndBadLinesFailAlone() async throws {
        let server = try CarrierWorkerTests.server()
        defer { server.remove() }
        try await server.run { client in
            let first = try await client.createOrder(number: "BULK-1")
            let second = try await client.createOrder(number: "BULK-2")
            let third = try await client.createOrder(number: "BULK-3")
            let shipped: JSONValue = [
                "fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "shipped", "carrier": "UPS", "trackingNumber": "1Z999AA10000000001"]]
            ]
            let lines = [
                Self.json(["orderNumber": "BULK-1", "patch": shipped]),
                // The same order again: after the line before it, in file order.
                Self.json(["orderNumber": "BULK-1", "patch": ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "onTheWay"]]]]),
                Self.json(["orderTypeIdentifier": .string(second.type), "orderIdentifier": .string(second.id), "patch": shipped, "ifMatch": "\"1\""]),
                Self.json(["orderIdentifier": .string(third.id), "patch": ["status": "completed"], "ifMatch": 7]),
                "{not json",
                "",
                Self.json(["orderNumber": "NOPE-404", "patch": ["status": "completed"]]),
                Self.json(["orderNumber": "BULK-3", "patch": ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "flying"]]]]),
                Self.json(["orderNumber": "BULK-3", "patch": ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "processing"]]]]),
                Self.json(["orderNumber": "BULK-3", "orderIdentifier": .string(third.id), "patch": [:]]),
                Self.json(["orderNumber": "BULK-3", "patch": [:], "color": "red"]),
            ]
            let (reply, results) = try await Self.bulk(client, lines)
            #expect(reply.status == .ok && reply.headers[.contentType] == "application/x-ndjson")
            #expect(Set(results.keys) == Set(1...11).subtracting([6]), "a result for every line but the blank one: \(results.keys.sorted())")

            #expect(results[1]?["result"] == "applied" && results[1]?["version"] == 2 && results[1]?["orderIdentifier"] == .string(first.id))
            #expect(results[2]?["result"] == "applied" && results[2]?["version"] == 3)
            #expect(results[3]?["result"] == "applied" && results[3]?["version"] == 2)
            #expect(results[4]?["status"] == 412 && results[4]?["error"]?["code"] == "order_version_mismatch", "\(results[4] ?? .null)")
            #expect(results[4]?["error"]?["param"] == "ifMatch" && results[4]?["error"]?["currentVersion"] == 1)
            #expect(results[5]?["status"] == 400 && results[5]?["error"]?["code"] == "bulk_line_invalid")
            #expect(results[7]?["status"] == 404 && results[7]?["error"]?["code"] == "not_found")
            #expect(results[8]?["status"] == 422 && results[8]?["error"]?["code"] == "order_invalid", "\(results[8] ?? .null)")
            #expect(results[9]?["result"] == "unchanged" && results[9]?["version"] == 1)
            #expect(results[10]?["error"]?["param"] == "orderIdentifier" && results[11]?["error"]?["param"] == "color")

            let order = try await client.merchant(.get, first.path)
            #expect(order.headers[.eTag] == "\"3\"")
            #expect((order.json["order"] ?? order.json)["fulfillments"]?.arrayValue?.first?["status"] == "onTheWay")
            #expect(try await client.merchant(.get, third.path).headers[.eTag] == "\"1\"", "the failed lines changed nothing")
            let history = try await client.merchant(.get, "\(first.path)/history").json["data"]?.arrayValue?.first
            #expect(history?["author"] == "merchant API" || history?["keyName"] != nil)
        }
    }

    @Test func aFulfillmentsKeyChangesOnlyTrackingAndTheLimitsHold() async throws {
        let server = try CarrierWorkerTests.server()
        defer { server.remove() }
        try await server.run { client in
            _ = try await client.createOrder(number: "BULK-K1")
            let partner = try await RestrictedKeyTests.createKey(client, ["name": "warehouse", "scopes": ["fulfillments:write"]])
            let lines = [
                Self.json(["orderNumber": "BULK-K1", "patch": ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "shipped"]]]]),
                Self.json(["orderNumber": "BULK-K1", "patch": ["status": "completed"]]),
                String(repeating: "x", count: BulkUpdates.maximumLineBytes + 10),
                Self.json(["orderNumber": "BULK-K1", "patch": ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "onTheWay"]]]]),
            ]
            let (reply, results) = try await Self.bulk(client, lines, key: partner.secret)
            #expect(reply.status == .ok)
            #expect(results[1]?["result"] == "applied")
            #expect(results[2]?["status"] == 403 && results[2]?["error"]?["code"] == "change_not_allowed")
            #expect(results[3]?["error"]?["message"]?.stringValue?.contains("longer than") == true, "\(results[3] ?? .null)")
            #expect(results[4]?["result"] == "applied" && results[4]?["version"] == 3, "the line after an over-long one still applies")

            // A key without either write scope is refused before any line is read.
            let reader = try await RestrictedKeyTests.createKey(client, ["name": "reader", "scopes": ["orders:read"]])
            let (refused, _) = try await Self.bulk(client, [lines[0]], key: reader.secret)
            #expect(refused.status == .forbidden)

            // At most 10,000 lines: the next one ends the answer.
            let (tooMany, manyResults) = try await Self.bulk(client, Array(repeating: "{}", count: BulkUpdates.maximumLines + 5))
            #expect(tooMany.status == .ok && manyResults.count == BulkUpdates.maximumLines + 1)
            #expect(manyResults[BulkUpdates.maximumLines + 1]?["error"]?["code"] == "bulk_too_large")
        }
    }

    @Test func aBulkLineGivingATrackingNumberAppliesTheCarrierEventThatWaitedForIt() async throws {
        let server = try CarrierWorkerTests.server()
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            _ = try await client.createOrder(number: "BULK-C1")
            let connection = try await CarrierWorkerTests.connect(client, merchantID: merchantID)
            let receipt = try await CarrierWorkerTests.deliver(
                client, connection: connection, CarrierWorkerTests.event(trackingNumber: "JJD0099999999", status: "onTheWay", at: Date()))
            #expect(try await CarrierWorkerTests.finished(client, merchantID: merchantID, receipt).state == .unmatched)

            let (_, results) = try await Self.bulk(
                client,
                [
                    Self.json([
                        "orderNumber": "BULK-C1",
                        "patch": ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "shipped", "trackingNumber": "JJD0099999999"]]],
                    ])
                ])
            #expect(results[1]?["result"] == "applied")
            var record: CarrierEventRecord?
            try await Poll.until(timeout: .seconds(20)) {
                record = try await client.store.recentCarrierEvents(merchantID: merchantID, limit: 10).first { $0.id == receipt.id }
                return record?.state == .applied
            }
            #expect(record?.state == .applied, "\(record?.outcome ?? "")")
        }
    }
}
