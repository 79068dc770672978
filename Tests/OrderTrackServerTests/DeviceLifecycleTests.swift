import Foundation
import HTTPTypes
import OrderModel
import OrderPackage
import OrderZip
import ServerTestSupport
import Testing

/// A Wallet device simulator walking an order's whole life over real HTTP.
@Suite struct DeviceLifecycleTests {
    @Test func orderLifeFromApplePayToUnregister() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            // Payment completion: the merchant creates the order and gets the four orderDetails strings.
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            #expect(created.status == .created, "\(created.text)")
            let details = try #require(created.json["orderDetails"]?.objectValue)
            #expect(details["webServiceURL"] == .string("\(TestServer.publicURL)/wallet"))
            #expect(details["orderTypeIdentifier"] == "order.dev.ordertrack.demo")
            let type = try #require(details["orderTypeIdentifier"]?.stringValue)
            let id = try #require(details["orderIdentifier"]?.stringValue)
            let token = try #require(details["authenticationToken"]?.stringValue)
            #expect(token.count >= 22, "at least 128 bits as base64url")
            #expect(created.json["order"]?["payment"]?["total"]?["amount"] == .number("42.00"))
            #expect(created.json["order"]?["authenticationToken"] == .string(token))

            // The device fetches the signed package.
            let orderPath = "/wallet/v1/orders/\(type)/\(id)"
            let first = try await client.device(.get, orderPath, token: token)
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "application/vnd.apple.finance.order")
            let lastModified = try #require(first.headers[.lastModified])
            #expect(lastModified.hasSuffix(" GMT"))
            let root = try String(contentsOfFile: client.credentials.rootCertificate, encoding: .utf8)
            let verification = await (try OrderPackageVerifier(trustRootsPEM: root)).verify(first.body)
            #expect(verification.isValid, "\(verification.problems)")
            #expect(verification.anchored)
            #expect(verification.orderTypeIdentifier == type)

            // Standard HTTP caching: the same version is not sent again.
            let revalidated = try await client.device(.get, orderPath, token: token, headers: [.ifModifiedSince: lastModified])
            #expect(revalidated.status == .notModified)
            #expect(revalidated.body.isEmpty)

            // Registration: 201, then 200; a rotated push token replaces the old one.
            let registration = "/wallet/v1/devices/device-A1/registrations/\(type)/\(id)"
            let tokenA = String(repeating: "ab", count: 32)
            let tokenB = String(repeating: "cd", count: 32)
            #expect(try await client.device(.post, registration, token: token, json: ["pushToken": .string(tokenA)]).status == .created)
            #expect(try await client.device(.post, registration, token: token, json: ["pushToken": .string(tokenA)]).status == .ok)
            #expect(try await client.device(.post, registration, token: token, json: ["pushToken": .string(tokenB)]).status == .ok)

            // The registrations list with an opaque change tag.
            let listPath = "/wallet/v1/devices/device-A1/registrations/\(type)"
            let listed = try await client.call(.get, listPath)
            #expect(listed.status == .ok)
            #expect(listed.headers[.contentType] == "application/json")
            #expect(listed.json["orderIdentifiers"] == .array([.string(id)]))
            let tag = try #require(listed.json["lastModified"]?.stringValue)
            #expect(try await client.call(.get, "\(listPath)?ordersModifiedSince=\(tag)").status == .noContent)

            // The merchant ships the order.
            let patch: JSONValue = [
                "fulfillments": [["fulfillmentIdentifier": "ship-1", "status": "shipped", "carrier": "UPS", "trackingNumber": "1Z999"]]
            ]
            let updated = try await client.merchant(.patch, "/api/v1/orders/\(type)/\(id)", json: patch)
            #expect(updated.status == .ok, "\(updated.text)")
            #expect(updated.json["changed"] == true)
            let createdAt = try #require(created.json["order"]?["updatedAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339))
            let updatedAt = try #require(updated.json["order"]?["updatedAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339))
            #expect(
                updatedAt.timeIntervalSince1970.rounded(.down) > createdAt.timeIntervalSince1970.rounded(.down),
                "a new version lands in a later second")

            // The device learns of it through the list, then fetches the new version despite If-Modified-Since.
            let changed = try await client.call(.get, "\(listPath)?ordersModifiedSince=\(tag)")
            #expect(changed.status == .ok)
            #expect(changed.json["orderIdentifiers"] == .array([.string(id)]))
            let newTag = try #require(changed.json["lastModified"]?.stringValue)
            #expect(Int64(newTag)! > Int64(tag)!)
            let second = try await client.device(.get, orderPath, token: token, headers: [.ifModifiedSince: lastModified])
            #expect(second.status == .ok)
            let secondOrder = try unzipOrderJSON(second.body)
            #expect(secondOrder["fulfillments"]?.arrayValue?.first?["status"] == "shipped")

            // Unregister: 200, and the device no longer lists the order.
            #expect(try await client.device(.delete, registration, token: token).status == .ok)
            #expect(try await client.call(.get, listPath).status == .noContent)
        }
    }

    @Test func restartKeepsOrdersRegistrationsAndKeys() async throws {
        let server = try TestServer()
        defer { server.remove() }
        let (type, id, token) = try await server.run { client in
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            let details = try #require(created.json["orderDetails"])
            let type = try #require(details["orderTypeIdentifier"]?.stringValue)
            let id = try #require(details["orderIdentifier"]?.stringValue)
            let token = try #require(details["authenticationToken"]?.stringValue)
            let registration = "/wallet/v1/devices/device-R/registrations/\(type)/\(id)"
            #expect(
                try await client.device(.post, registration, token: token, json: ["pushToken": .string(String(repeating: "0f", count: 32))]).status
                    == .created)
            return (type, id, token)
        }
        let firstCredentials = try server.loadCredentials()
        try await server.run { client in
            #expect(client.apiKey == firstCredentials.apiKey, "a restart does not create a second demo merchant")
            #expect(try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)").status == .ok)
            #expect(try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: token).status == .ok)
            let listed = try await client.call(.get, "/wallet/v1/devices/device-R/registrations/\(type)")
            #expect(listed.json["orderIdentifiers"] == .array([.string(id)]))
            let registration = "/wallet/v1/devices/device-R/registrations/\(type)/\(id)"
            #expect(
                try await client.device(.post, registration, token: token, json: ["pushToken": .string(String(repeating: "0f", count: 32))]).status
                    == .ok)
        }
    }
}

/// order.json of a package, read with our zip reader.
func unzipOrderJSON(_ package: [UInt8]) throws -> JSONValue {
    let inspection = ZipReader.inspect(package, limits: .orderPackage)
    let file = try #require(inspection.files.first { $0.name == "order.json" })
    return try JSONValue.parse(file.data)
}
