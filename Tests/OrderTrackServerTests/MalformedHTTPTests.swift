import Foundation
import OrderModel
import ServerTestSupport
import Testing

/// Bytes the HTTP parser refuses are answered like every other error: 400, `application/json`, the error envelope,
/// then the connection closes; the server goes on serving other connections. Sent over raw sockets, because HTTP
/// clients refuse to send such bytes.
@Suite struct MalformedHTTPTests {
    /// Writes `bytes` to a new connection to `port` and reads until the server closes it (or 10 s pass).
    static func exchange(port: Int, _ bytes: [UInt8]) async throws -> [UInt8] {
        try await RawSocket.with(port: port, receiveTimeout: .seconds(10)) { socket in
            var sent = 0
            while sent < bytes.count {
                let written = socket.send(bytes[sent...])
                // The server may answer and close before it has read everything (an oversized header block).
                guard written > 0 else { break }
                sent += written
            }
            var received: [UInt8] = []
            while case .bytes(let chunk) = socket.receive() { received += chunk }
            return received
        }
    }

    /// One HTTP/1.1 response split into status, lower-cased header names and body.
    struct RawResponse {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]

        init(_ bytes: [UInt8]) throws {
            let text = String(decoding: bytes, as: UTF8.self)
            let parts = try #require(text.range(of: "\r\n\r\n"), "no complete response in \(text.debugDescription)")
            let lines = text[..<parts.lowerBound].components(separatedBy: "\r\n")
            status = try #require(Int(lines[0].split(separator: " ")[1]), "status line \(lines[0])")
            headers = Dictionary(
                lines.dropFirst().map { line in
                    let colon = line.firstIndex(of: ":")!
                    return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }, uniquingKeysWith: { first, _ in first })
            body = Array(text[parts.upperBound...].utf8)
        }
    }

    /// Expects the JSON 400 for a malformed request, whose message names `part`.
    static func expectMalformedAnswer(_ bytes: [UInt8], naming part: String) throws {
        let response = try RawResponse(bytes)
        #expect(response.status == 400)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["connection"] == "close")
        #expect(response.headers["content-length"] == String(response.body.count))
        let error = try #require(try JSONValue.parse(response.body)["error"])
        #expect(error["type"] == "invalid_request_error")
        #expect(error["code"] == "malformed_request")
        let message = try #require(error["message"]?.stringValue)
        #expect(message.contains(part), "\(message)")
    }

    @Test func malformedRequestsGetTheJSONErrorAndTheServerKeepsServing() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let port = client.port
            // Control bytes in a header value (what schemathesis sent in If-Modified-Since).
            let control =
                Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nIf-Modified-Since: =".utf8) + [0xDA, 0x47, 0xA5, 0x12, 0xC0]
                + Array("\r\n\r\n".utf8)
            try Self.expectMalformedAnswer(try await Self.exchange(port: port, control), naming: "header name or value")
            // A header name that is not a token.
            let badName = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Name: x\r\n\r\n".utf8)
            try Self.expectMalformedAnswer(try await Self.exchange(port: port, badName), naming: "header name or value")
            // A bad request line.
            try Self.expectMalformedAnswer(try await Self.exchange(port: port, Array("GET /healthz HTTX/1.1\r\n\r\n".utf8)), naming: "request line")
            // A header block over the limit.
            let oversized = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Filler: \(String(repeating: "a", count: 100_000))\r\n\r\n".utf8)
            try Self.expectMalformedAnswer(try await Self.exchange(port: port, oversized), naming: "header block is larger")
            // Too many header fields.
            let many = Array(("GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + (0..<500).map { "X-\($0): 1\r\n" }.joined() + "\r\n").utf8)
            try Self.expectMalformedAnswer(try await Self.exchange(port: port, many), naming: "header block is larger")

            // A good request, then a malformed one on the same connection: the first is answered as usual, the second
            // with the JSON error.
            let keepAlive = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\nX: \u{1}\r\n\r\n".utf8)
            let both = String(decoding: try await Self.exchange(port: port, keepAlive), as: UTF8.self)
            let second = try #require(both.range(of: "HTTP/1.1 400"), "\(both)")
            #expect(both.hasPrefix("HTTP/1.1 200"))
            try Self.expectMalformedAnswer(Array(both[second.lowerBound...].utf8), naming: "header name or value")

            // Every other connection is still served.
            #expect(try await client.call(.get, "/healthz").status == .ok)
            #expect(try await client.merchant(.get, "/api/v1/orders").status == .ok)
        }
    }

    @Test func m9_aStalledBodyIsAnswered408AndTheConnectionClosed() async throws {
        var server = try TestServer()
        server.requestBodyTimeout = .seconds(2)
        defer { server.remove() }
        try await server.run { client in
            // The audit's slowloris: headers and 5 of 1,000 body bytes, then nothing.
            let stalled = Array(
                "POST /api/v1/orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(client.apiKey)\r\nContent-Length: 1000\r\n\r\n{\"a\":"
                    .utf8)
            let started = ContinuousClock.now
            let response = try RawResponse(try await Self.exchange(port: client.port, stalled))
            let waited = ContinuousClock.now - started
            #expect(response.status == 408)
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.headers["connection"] == "close")
            #expect(try JSONValue.parse(response.body)["error"]?["code"] == "body_timeout")
            #expect(waited >= .seconds(2) && waited < .seconds(8), "answered at the deadline: \(waited)")
            // A body that arrives in time is unaffected, and nothing of the stalled request was written.
            #expect(try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order).status == .created)
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.count == 1)
        }
    }
}
