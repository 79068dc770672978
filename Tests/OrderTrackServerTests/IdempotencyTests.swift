import AsyncHTTPClient
import Foundation
import NIOCore
import OrderModel
import ServerTestSupport
import Testing

/// Audit M1: an Idempotency-Key makes concurrent retries create one order, on SQLite and PostgreSQL alike (scripts/test
/// runs this suite on both).
@Suite struct IdempotencyTests {
    /// Sends `bodies` concurrently as order creations under one key; returns (status, body) of each.
    static func createConcurrently(_ client: Client, key: String, bodies: [JSONValue]) async throws -> [(UInt, [UInt8])] {
        let url = "http://127.0.0.1:\(client.port)/api/v1/orders"
        return try await withThrowingTaskGroup(of: (UInt, [UInt8]).self) { group in
            for body in bodies {
                group.addTask {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.headers.add(name: "Authorization", value: "Bearer \(client.apiKey)")
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.headers.add(name: "Idempotency-Key", value: key)
                    request.body = .bytes(ByteBuffer(bytes: body.serialized()))
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                    let bytes = try await response.body.collect(upTo: 1 << 20)
                    return (response.status.code, Array(bytes.readableBytesView))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    static func orderCount(_ client: Client) async throws -> Int {
        try await client.merchant(.get, "/api/v1/orders?limit=100").json["data"]?.arrayValue?.count ?? -1
    }

    @Test func m1_fiftyConcurrentRetriesWithOneKeyCreateOneOrder() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let answers = try await Self.createConcurrently(client, key: "checkout-1", bodies: Array(repeating: SampleContent.order, count: 50))
            #expect(answers.allSatisfy { $0.0 == 201 }, "\(answers.map(\.0))")
            #expect(Set(answers.map(\.1)).count == 1, "every retry gets the same response, the same order and token")
            #expect(try await Self.orderCount(client) == 1)
        }
    }

    @Test func m1_fiftyConcurrentDifferentBodiesWithOneKeyCreateOneOrder() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let bodies: [JSONValue] = (0..<50).map { index in
                var content = SampleContent.order
                content["orderNumber"] = .string("10\(index)")
                return content
            }
            let answers = try await Self.createConcurrently(client, key: "checkout-2", bodies: bodies)
            #expect(answers.filter { $0.0 == 201 }.count == 1, "\(answers.map(\.0))")
            let conflicts = answers.filter { $0.0 == 409 }
            #expect(conflicts.count == 49)
            #expect(conflicts.allSatisfy { (try? JSONValue.parse($0.1))?["error"]?["code"] == "idempotency_key_reused" })
            #expect(try await Self.orderCount(client) == 1)
        }
    }
}
