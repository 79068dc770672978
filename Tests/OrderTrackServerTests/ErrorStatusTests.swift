import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import Testing

/// Every error status of every endpoint, each with a precise message and nothing written.
@Suite struct ErrorStatusTests {
    @Test func deviceEndpoints() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, token) = try await client.createOrder().details
            let orderPath = "/wallet/v1/orders/\(type)/\(id)"
            let registration = "/wallet/v1/devices/dev-1/registrations/\(type)/\(id)"
            let pushToken: JSONValue = ["pushToken": .string(String(repeating: "a1", count: 32))]

            // 401 alike for a wrong token, an unknown order, a missing header and another scheme.
            #expect(try await client.device(.get, orderPath, token: token + "x").status == .unauthorized)
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/no-such-order", token: token).status == .unauthorized)
            #expect(try await client.device(.get, "/wallet/v1/orders/order.other.type/\(id)", token: token).status == .unauthorized)
            #expect(try await client.device(.get, orderPath, token: nil).status == .unauthorized)
            #expect(try await client.call(.get, orderPath, headers: [.authorization: "Bearer \(token)"]).status == .unauthorized)
            #expect(try await client.device(.post, registration, token: "wrong-token-1234567890", json: pushToken).status == .unauthorized)
            #expect(try await client.device(.delete, registration, token: nil).status == .unauthorized)

            // 400 for malformed path components and bodies, with the reason.
            let badPath = try await client.device(.get, "/wallet/v1/orders/\(type)/bad%20id", token: token)
            #expect(badPath.status == .badRequest)
            #expect(badPath.json["error"]?["param"] == "orderIdentifier")
            let longID = String(repeating: "x", count: 300)
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(longID)", token: token).status == .badRequest)
            let malformed = try await client.call(
                .post, registration, headers: [.authorization: "AppleOrder \(token)"], body: Array("{\"pushToken\": ".utf8))
            #expect(malformed.status == .badRequest)
            #expect(malformed.json["error"]?["code"] == "invalid_json")
            let missing = try await client.device(.post, registration, token: token, json: ["token": "abc"])
            #expect(missing.status == .badRequest && missing.json["error"]?["param"] == "pushToken")
            #expect(try await client.device(.post, registration, token: token, json: ["pushToken": "not-hex!"]).status == .badRequest)
            let huge = try await client.call(
                .post, registration, headers: [.authorization: "AppleOrder \(token)"], body: [UInt8](repeating: 0x20, count: 200_000))
            #expect(huge.status == .contentTooLarge)
            #expect(
                try await client.call(.get, "/wallet/v1/devices/dev-1/registrations/\(type)").status == .noContent,
                "nothing was registered by the failures")

            // If-Modified-Since in the past, or unparseable: the package is sent.
            #expect(
                try await client.device(.get, orderPath, token: token, headers: [.ifModifiedSince: "Sat, 01 Jan 2000 00:00:00 GMT"]).status == .ok)
            #expect(try await client.device(.get, orderPath, token: token, headers: [.ifModifiedSince: "0"]).status == .ok)
            // asctime and RFC 850 forms of a future date are understood.
            #expect(
                try await client.device(.get, orderPath, token: token, headers: [.ifModifiedSince: "Fri Jan  1 00:00:00 2100"]).status == .notModified
            )
            #expect(
                try await client.device(.get, orderPath, token: token, headers: [.ifModifiedSince: "Friday, 01-Jan-49 00:00:00 GMT"]).status
                    == .notModified)

            // Unregistering what was never registered is still 200, as Apple documents.
            #expect(try await client.device(.delete, registration, token: token).status == .ok)

            // Registrations list: a tag we never issued lists everything; an invalid device id is 400.
            #expect(try await client.device(.post, registration, token: token, json: pushToken).status == .created)
            let foreignTag = try await client.call(.get, "/wallet/v1/devices/dev-1/registrations/\(type)?ordersModifiedSince=1718000000.123")
            #expect(foreignTag.status == .ok && foreignTag.json["orderIdentifiers"] == .array([.string(id)]))
            #expect(try await client.call(.get, "/wallet/v1/devices/bad%2Fdevice/registrations/\(type)").status == .badRequest)

            // Log endpoint: Apple's shape, the bare array some clients send, and garbage.
            #expect(
                try await client.call(.post, "/wallet/v1/log", body: (["logs": ["fetch failed", "retrying"]] as JSONValue).serialized()).status == .ok
            )
            #expect(try await client.call(.post, "/wallet/v1/log", body: (["one", "two"] as JSONValue).serialized()).status == .ok)
            #expect(try await client.call(.post, "/wallet/v1/log", body: Array("{\"logs\": 5}".utf8)).status == .badRequest)
            #expect(try await client.call(.post, "/wallet/v1/log", body: Array("not json".utf8)).status == .badRequest)
        }
    }

    @Test func merchantAuthentication() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let noKey = try await client.call(.get, "/api/v1/orders")
            #expect(noKey.status == .unauthorized)
            #expect(noKey.json["error"]?["type"] == "authentication_error")
            #expect(try await client.call(.get, "/api/v1/orders", headers: [.authorization: "Bearer sk_wrong"]).status == .unauthorized)
            #expect(try await client.call(.get, "/api/v1/orders", headers: [.authorization: "Token abc"]).status == .unauthorized)
            let basic = Data("\(client.apiKey):".utf8).base64EncodedString()
            #expect(try await client.call(.get, "/api/v1/orders", headers: [.authorization: "Basic \(basic)"]).status == .ok, "curl -u sk_…: works")
        }
    }

    @Test func createOrderErrors() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let invalid = SampleContent.order.setting("status", to: "shipped").setting("payment.total.currency", to: "usd")
                .setting("lineItems.0.quantity", to: nil)
            let rejected = try await client.merchant(.post, "/api/v1/orders", json: invalid)
            #expect(rejected.status == .unprocessableContent)
            let problems = try #require(rejected.json["error"]?["problems"]?.arrayValue)
            #expect(Set(problems.compactMap { $0["path"]?.stringValue }) == ["status", "payment.total.currency", "lineItems[0].quantity"])
            #expect(rejected.json["error"]?["code"] == "order_invalid")

            #expect(try await client.merchant(.post, "/api/v1/orders", json: ["a", "b"]).status == .badRequest)
            let notJSON = try await client.call(.post, "/api/v1/orders", headers: [.authorization: "Bearer \(client.apiKey)"], body: Array("{".utf8))
            #expect(notJSON.status == .badRequest && notJSON.json["error"]?["code"] == "invalid_json")
            let foreignType = try await client.merchant(
                .post, "/api/v1/orders", json: SampleContent.order.setting("orderTypeIdentifier", to: "order.com.someone.else"))
            #expect(foreignType.status == .forbidden)
            let webService = try await client.merchant(
                .post, "/api/v1/orders", json: SampleContent.order.setting("webServiceURL", to: "https://elsewhere.example/wallet"))
            #expect(webService.status == .badRequest && webService.json["error"]?["param"] == "webServiceURL")
            let badIdentifier = try await client.merchant(
                .post, "/api/v1/orders", json: SampleContent.order.setting("orderIdentifier", to: "has space"))
            #expect(badIdentifier.status == .badRequest && badIdentifier.json["error"]?["param"] == "orderIdentifier")
            let missingLogo = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order.setting("merchant.logo", to: "logo.png"))
            #expect(missingLogo.status == .unprocessableContent && missingLogo.json["error"]?["param"] == "merchant.logo")

            let fixed = SampleContent.order.setting("orderIdentifier", to: "fixed-1")
            #expect(try await client.merchant(.post, "/api/v1/orders", json: fixed).status == .created)
            let duplicate = try await client.merchant(.post, "/api/v1/orders", json: fixed)
            #expect(duplicate.status == .conflict && duplicate.json["error"]?["code"] == "order_exists")

            let list = try await client.merchant(.get, "/api/v1/orders")
            #expect(list.json["data"]?.arrayValue?.count == 1, "rejected requests wrote nothing")
        }
    }

    @Test func aMethodAKnownPathDoesNotTakeIs405WithAllow() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            for (method, path, allow) in [
                (HTTPRequest.Method.patch, "/api/v1/orders", "GET, POST"),
                (.delete, "/wallet/v1/orders/order.dev.ordertrack.demo/some-order", "GET"),
                (.get, "/wallet/v1/log", "POST"),
                (.post, "/api/v1/assets/logo.png", "DELETE, GET, PUT"),
            ] {
                let reply = try await client.call(method, path)
                #expect(reply.status == .methodNotAllowed, "\(method) \(path)")
                #expect(reply.headers[.allow] == allow, "\(method) \(path)")
                #expect(reply.json["error"]?["code"] == "method_not_allowed")
            }
            #expect(try await client.call(.get, "/api/v1/nothing-here").status == .notFound, "an unknown path is still 404")
            #expect(try await client.call(.get, "/api/v1/orders").status == .unauthorized, "allowed methods are untouched")
        }
    }

    @Test func idempotencyKeys() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "checkout-42"]
            let order = SampleContent.order
            let first = try await client.merchant(.post, "/api/v1/orders", json: order, headers: key)
            let again = try await client.merchant(.post, "/api/v1/orders", json: order, headers: key)
            #expect(first.status == .created && again.status == .created)
            #expect(first.body == again.body, "the same key and body replay the same response")
            let other = try await client.merchant(.post, "/api/v1/orders", json: order.setting("orderNumber", to: "2"), headers: key)
            #expect(other.status == .conflict && other.json["error"]?["code"] == "idempotency_key_reused")
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.count == 1)
        }
    }

    @Test func updateReadAndNotifyErrors() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder(SampleContent.order(number: "1001")).details
            let path = "/api/v1/orders/\(type)/\(id)"
            #expect(try await client.merchant(.get, "/api/v1/orders/\(type)/missing").status == .notFound)
            #expect(try await client.merchant(.patch, "/api/v1/orders/\(type)/missing", json: ["status": "completed"]).status == .notFound)
            let immutable = try await client.merchant(.patch, path, json: ["orderIdentifier": "other"])
            #expect(immutable.status == .unprocessableContent && immutable.json["error"]?["param"] == "orderIdentifier")
            let invalid = try await client.merchant(
                .patch, path, json: ["fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "teleported"]]])
            #expect(invalid.status == .unprocessableContent && invalid.json["error"]?["param"] == "fulfillments[0].status")
            let unchanged = try await client.merchant(.patch, path, json: ["status": "open"])
            #expect(unchanged.status == .ok && unchanged.json["changed"] == false)
            #expect(try await client.merchant(.get, path).json["order"] == unchanged.json["order"], "a rejected or empty patch changes nothing")

            let notify = try await client.merchant(.post, "\(path)/notify")
            #expect(notify.status == .accepted && notify.json["registrations"] == 0)
            let form = try await client.call(
                .post, "/api/v1/apple_pay/order_tracking/notify",
                headers: [.authorization: "Bearer \(client.apiKey)", .contentType: "application/x-www-form-urlencoded"],
                body: Array("order_type_identifier=\(type)&order_identifier=\(id)".utf8))
            #expect(form.status == .accepted)
            let incomplete = try await client.call(
                .post, "/api/v1/apple_pay/order_tracking/notify",
                headers: [.authorization: "Bearer \(client.apiKey)"], body: Array("order_identifier=\(id)".utf8))
            #expect(incomplete.status == .badRequest)

            let package = try await client.merchant(.get, "\(path)/package")
            #expect(package.status == .ok)
            #expect(package.headers[.contentDisposition] == "attachment; filename=\"1001.order\"")
            #expect(package.headers[.contentType] == "application/vnd.apple.finance.order")

            #expect(try await client.merchant(.get, "/api/v1/orders?limit=0").status == .badRequest)
            #expect(try await client.merchant(.get, "/api/v1/orders?status=lost").status == .badRequest)
            #expect(try await client.merchant(.get, "/api/v1/orders?cursor=garbage").status == .badRequest)
            #expect(try await client.merchant(.get, "/api/v1/orders?updatedSince=yesterday").status == .badRequest)
        }
    }

    @Test func assets() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 64)
            let auth: HTTPFields = [.authorization: "Bearer \(client.apiKey)"]
            #expect(try await client.call(.put, "/api/v1/assets/logo.png", headers: auth, body: png).status == .ok)
            #expect(
                try await client.call(.put, "/api/v1/assets/fr.lproj/order.strings", headers: auth, body: Array("\"SHOP\" = \"Boutique\";".utf8))
                    .status == .ok)
            #expect(try await client.call(.put, "/api/v1/assets/notes.txt", headers: auth, body: Array("hello".utf8)).status == .badRequest)
            #expect(
                try await client.call(.put, "/api/v1/assets/fr.lproj/order.strings", headers: auth, body: Array("\"SHOP\" = ".utf8)).status
                    == .badRequest)
            #expect(try await client.call(.put, "/api/v1/assets/a/b/c.png", headers: auth, body: png).status == .badRequest)
            #expect(
                try await client.call(.put, "/api/v1/assets/big.png", headers: auth, body: png + [UInt8](repeating: 0, count: 2 * 1024 * 1024)).status
                    == .contentTooLarge)
            let fetched = try await client.call(.get, "/api/v1/assets/logo.png", headers: auth)
            #expect(fetched.status == .ok && fetched.body == png && fetched.headers[.contentType] == "image/png")
            #expect(try await client.merchant(.get, "/api/v1/assets").json["data"]?.arrayValue?.count == 2)

            // An order referencing the logo gets it, and the French strings, in its package.
            let created = try await client.merchant(
                .post, "/api/v1/orders",
                json: SampleContent.order.setting("merchant.logo", to: "logo.png").setting("merchant.displayName", to: "SHOP"))
            #expect(created.status == .created, "\(created.text)")
            let details = try #require(created.json["orderDetails"])
            let package = try await client.merchant(
                .get, "/api/v1/orders/\(details["orderTypeIdentifier"]!.stringValue!)/\(details["orderIdentifier"]!.stringValue!)/package")
            let names = Set(ZipNames.of(package.body))
            #expect(names == ["order.json", "logo.png", "fr.lproj/order.strings", "manifest.json", "signature"])

            #expect(try await client.call(.delete, "/api/v1/assets/logo.png", headers: auth).status == .noContent)
            #expect(try await client.call(.delete, "/api/v1/assets/logo.png", headers: auth).status == .notFound)
            #expect(try await client.call(.get, "/api/v1/assets/logo.png", headers: auth).status == .notFound)
        }
    }
}
