import AsyncHTTPClient
import Foundation
import NIOCore
import OrderModel
import ServerTestSupport
import Testing

/// Many real connections at once: nothing lost, nothing duplicated.
@Suite struct ConcurrencyTests {
    @Test func hundredConcurrentRegistrationsAndUpdates() async throws {
        var server = try TestServer()
        // 100 devices of one order in one burst: past the registration cap and the order token's rate (AbuseLimitTests
        // cover those); this test is about concurrency.
        server.limits = .unlimited
        defer { server.remove() }
        try await server.run { client in
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            let details = try #require(created.json["orderDetails"])
            let type = details["orderTypeIdentifier"]!.stringValue!
            let id = details["orderIdentifier"]!.stringValue!
            let token = details["authenticationToken"]!.stringValue!
            let base = "http://127.0.0.1:\(client.port)"
            // The shared client needs no shutdown, so a failing expectation cannot leak it.
            let http = HTTPClient.shared

            let statuses = try await withThrowingTaskGroup(of: (String, UInt).self) { group in
                for index in 0..<100 {
                    group.addTask {
                        var request = HTTPClientRequest(url: "\(base)/wallet/v1/devices/device-\(index)/registrations/\(type)/\(id)")
                        request.method = .POST
                        request.headers.add(name: "Authorization", value: "AppleOrder \(token)")
                        request.body = .bytes(
                            ByteBuffer(bytes: (["pushToken": .string(String(format: "%064x", index + 1))] as JSONValue).serialized()))
                        return ("register", try await http.execute(request, timeout: .seconds(60)).status.code)
                    }
                    group.addTask {
                        var request = HTTPClientRequest(url: "\(base)/api/v1/orders/\(type)/\(id)")
                        request.method = .PATCH
                        request.headers.add(name: "Authorization", value: "Bearer \(client.apiKey)")
                        request.body = .bytes(ByteBuffer(bytes: (["statusDescription": .string("update \(index)")] as JSONValue).serialized()))
                        return ("update", try await http.execute(request, timeout: .seconds(60)).status.code)
                    }
                }
                return try await group.reduce(into: [String: [UInt]]()) { $0[$1.0, default: []].append($1.1) }
            }
            #expect(statuses["register"] == Array(repeating: 201, count: 100))
            #expect(statuses["update"] == Array(repeating: 200, count: 100))

            let order = try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)")
            let description = try #require(order.json["order"]?["statusDescription"]?.stringValue)
            #expect(description.hasPrefix("update "))
            for index in [0, 42, 99] {
                let listed = try await client.call(.get, "/wallet/v1/devices/device-\(index)/registrations/\(type)")
                #expect(listed.json["orderIdentifiers"] == .array([.string(id)]), "device-\(index)")
            }
            let notified = try await client.merchant(.post, "/api/v1/orders/\(type)/\(id)/notify")
            #expect(notified.json["registrations"] == 100, "exactly one registration per device")
            // Every update produced its own version: updatedAt moved at least one whole second per change.
            let createdAt = try #require(created.json["order"]?["updatedAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339))
            let final = try #require(order.json["order"]?["updatedAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339))
            #expect(final.timeIntervalSince1970.rounded(.down) - createdAt.timeIntervalSince1970.rounded(.down) >= 100)
        }
    }
}
