import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import Testing

/// No lost updates: every order answer carries its version as `ETag`, and a `PATCH` with `If-Match` of a version the
/// order has left is refused with 412, naming the current version and who changed it last, with nothing written or
/// pushed. Without `If-Match` an update applies as before.
@Suite struct ConditionalUpdateTests {
    @Test func aStaleIfMatchIs412AndLosesNothing() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            #expect(created.status == .created)
            #expect(created.headers[.eTag] == #""1""#)
            let details = try #require(created.json["orderDetails"])
            let type = try #require(details["orderTypeIdentifier"]?.stringValue)
            let id = try #require(details["orderIdentifier"]?.stringValue)
            let token = try #require(details["authenticationToken"]?.stringValue)
            let path = "/api/v1/orders/\(type)/\(id)"
            #expect(try await client.merchant(.get, path).headers[.eTag] == #""1""#)
            let registration = "/wallet/v1/devices/device-1/registrations/\(type)/\(id)"
            let pushToken = String(repeating: "ab", count: 32)
            #expect(try await client.device(.post, registration, token: token, json: ["pushToken": .string(pushToken)]).status == .created)

            // Without If-Match, as before: the carrier's change applies.
            let carrier = try await client.merchant(.patch, path, json: ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "shipped"]]])
            #expect(carrier.status == .ok, "\(carrier.text)")
            #expect(carrier.headers[.eTag] == #""2""#)
            let queued = try await client.store.pushQueueDepth()
            let jobs = queued.pending + queued.parked

            // An edit of version 1 would revert it: refused, and nothing is written or pushed.
            for stale in [#""1""#, #""bogus""#, #"W/"2""#, #""1", "7""#] {
                let refused = try await client.merchant(.patch, path, json: ["status": "cancelled"], headers: [.ifMatch: stale])
                #expect(refused.status == .preconditionFailed, "If-Match \(stale): \(refused.status) \(refused.text)")
                #expect(refused.headers[.eTag] == #""2""#)
                let error = try #require(refused.json["error"])
                #expect(error["code"] == "order_version_mismatch")
                #expect(error["type"] == "conflict_error")
                #expect(error["param"] == "If-Match")
                #expect(error["currentVersion"] == .integer(2))
                #expect(error["lastChange"]?["version"] == .integer(2))
                #expect(error["lastChange"]?["by"]?.stringValue?.isEmpty == false)
                #expect(error["lastChange"]?["at"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339) != nil)
                let message = try #require(error["message"]?.stringValue)
                #expect(message.contains("version 2") && message.contains("nothing was changed"), "\(message)")
            }
            let after = try await client.merchant(.get, path)
            #expect(after.headers[.eTag] == #""2""#)
            #expect(after.json["order"]?["status"] == "open")
            #expect(after.json["order"]?["fulfillments"]?.arrayValue?.first?["status"] == "shipped", "the carrier's change survives")
            let depth = try await client.store.pushQueueDepth()
            #expect(depth.pending + depth.parked == jobs, "nothing is pushed on a refused update")

            // The version read last, in a list or as *, applies.
            let current = try await client.merchant(.patch, path, json: ["statusDescription": "On its way"], headers: [.ifMatch: #""2""#])
            #expect(current.status == .ok)
            #expect(current.headers[.eTag] == #""3""#)
            let listed = try await client.merchant(.patch, path, json: ["statusDescription": "Soon"], headers: [.ifMatch: #"W/"3", "1", "3""#])
            #expect(listed.status == .ok)
            #expect(listed.headers[.eTag] == #""4""#)
            #expect(try await client.merchant(.patch, path, json: ["statusDescription": "Now"], headers: [.ifMatch: "*"]).status == .ok)
            // A stale If-Match is refused even when the patch would change nothing: the condition comes first.
            #expect(
                try await client.merchant(.patch, path, json: ["statusDescription": "Now"], headers: [.ifMatch: #""4""#]).status
                    == .preconditionFailed)

            // Not an entity tag: 400, naming the header.
            for malformed in ["5", #""5"#, #""5" x"#, "W/5", #"""#] {
                let bad = try await client.merchant(.patch, path, json: ["status": "cancelled"], headers: [.ifMatch: malformed])
                #expect(bad.status == .badRequest, "If-Match \(malformed): \(bad.status)")
                #expect(bad.json["error"]?["code"] == "if_match_invalid")
                #expect(bad.json["error"]?["param"] == "If-Match")
            }
            #expect(try await client.merchant(.get, path).json["order"]?["status"] == "open")
        }
    }

    /// The dashboard's update of the version its page showed, after a carrier's PATCH through the API: refused, and
    /// the page can read the current version to apply the operator's change to it.
    @Test func theDashboardsUpdateOfAnOldVersionIsRefusedAndTheCarriersChangeSurvives() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder(number: "C-1").details
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let page = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: browser.cookie])
            #expect(page.text.contains(#"data-version="1""#))
            let carrier = try await client.merchant(
                .patch, "/api/v1/orders/\(type)/\(id)", json: ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "shipped"]]])
            #expect(carrier.status == .ok)

            var headers: HTTPFields = [.cookie: browser.cookie, .contentType: "application/json", DashboardTests.csrfHeader: browser.csrfToken]
            headers[.ifMatch] = #""1""#
            let url = "/dashboard/api/orders/\(type)/\(id)"
            let refused = try await client.call(.patch, url, headers: headers, body: Array(#"{"statusDescription": "Packed"}"#.utf8))
            #expect(refused.status == .preconditionFailed)
            #expect(refused.json["error"]?["currentVersion"] == .integer(2))
            #expect(refused.json["error"]?["lastChange"]?["by"]?.stringValue?.isEmpty == false)

            let current = try await client.call(.get, url, headers: [.cookie: browser.cookie])
            #expect(current.json["version"] == .integer(2))
            #expect(current.headers[.eTag] == #""2""#)
            #expect(current.json["order"]?["authenticationToken"] == nil, "the page never sees the token")
            #expect(current.json["order"]?["fulfillments"]?.arrayValue?.first?["status"] == "shipped")

            headers[.ifMatch] = #""2""#
            let reapplied = try await client.call(.patch, url, headers: headers, body: Array(#"{"statusDescription": "Packed"}"#.utf8))
            #expect(reapplied.status == .ok)
            let stored = try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)")
            #expect(stored.json["order"]?["statusDescription"] == "Packed")
            #expect(stored.json["order"]?["fulfillments"]?.arrayValue?.first?["status"] == "shipped", "the carrier's change survives")
            #expect(stored.headers[.eTag] == #""3""#)
        }
    }
}
