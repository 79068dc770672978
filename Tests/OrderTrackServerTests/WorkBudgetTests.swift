import Foundation
@_spi(WorkTally) import OrderModel
import ServerTestSupport
import Testing

/// An order is parsed and validated once per change (#30): the counts of a create and of a PATCH, with several assets
/// referenced, held to their budgets. Requests are answered in the test's task (`.router`), so the tally reaches the
/// handlers, the CPU pool's jobs and the package build the change queues.
@Suite struct WorkBudgetTests {
    static let assets: [String: [UInt8]] = [
        "logo.png": png, "logo@2x.png": png, "beans.png": png, "beans@2x.png": png, "mug.png": png, "unused.png": png,
    ]
    static let png = Array(
        Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!)

    static var content: JSONValue {
        var content = SampleContent.order
        content["merchant"]?["logo"] = "logo.png"
        content["lineItems"] = [
            ["title": "Coffee beans", "quantity": 1, "image": "beans.png", "price": ["amount": "21.00", "currency": "USD"]],
            ["title": "Mug", "quantity": 1, "image": "mug.png", "price": ["amount": "21.00", "currency": "USD"]],
        ]
        return content
    }

    @Test func aCreateAndAPatchStayWithinTheirBudgets() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run(testing: .router) { client in
            for (name, bytes) in Self.assets {
                let uploaded = try await client.call(
                    .put, "/api/v1/assets/\(name)", headers: [.authorization: "Bearer \(client.apiKey)"], body: bytes)
                #expect(uploaded.status == .ok, "\(uploaded.text)")
            }

            let creation = WorkTally()
            let reply = try await creation.measure { try await client.merchant(.post, "/api/v1/orders", json: Self.content) }
            #expect(reply.status == .created, "\(reply.text)")
            let details = try #require(reply.json["orderDetails"])
            let (type, id, token) = try (
                #require(details["orderTypeIdentifier"]?.stringValue), #require(details["orderIdentifier"]?.stringValue),
                #require(details["authenticationToken"]?.stringValue)
            )
            // The body parsed once; one walk and one normalization; the assets' names and the needed ones' bytes read
            // once; the route's parse, the translation with the walk, and the normalization with the answer on the pool.
            #expect(creation[.parse] == 1)
            #expect(creation[.schemaWalk] == 2)
            #expect(creation[.assetRead] == 2)
            #expect((3...4).contains(creation[.cpuHop]), "\(creation[.cpuHop]) CPU-pool jobs")

            let update = WorkTally()
            let patched = try await update.measure {
                try await client.merchant(
                    .patch, "/api/v1/orders/\(type)/\(id)", json: ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "shipped"]]])
            }
            #expect(patched.status == .ok, "\(patched.text)")
            #expect(patched.json["order"]?["fulfillments"]?.arrayValue?.first?["status"] == "shipped")
            // The device's fetch waits for the package the PATCH queued (or builds it, outside the tally).
            let fetched = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: token)
            #expect(fetched.status == .ok)
            #expect(Set(ZipNames.of(fetched.body)).isSuperset(of: ["order.json", "logo.png", "logo@2x.png", "beans.png", "beans@2x.png", "mug.png"]))
            #expect(!ZipNames.of(fetched.body).contains("unused.png"))

            // The patch and the stored order parsed once each, the merged order walked once and normalized once, the
            // assets read in two queries whatever their number. CPU-pool jobs: the merge with the walk, the
            // normalization with the audit diff, the answer; and the package build when it ran before the fetch did.
            #expect(update[.parse] == 2)
            #expect(update[.schemaWalk] == 2)
            #expect(update[.assetRead] == 2)
            #expect((3...4).contains(update[.cpuHop]), "\(update[.cpuHop]) CPU-pool jobs")
        }
    }
}
