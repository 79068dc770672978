import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import OrderModel
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// The abuse limits of audit findings M5, M6 and M9, and the lows L4, L8 and L12, over real HTTP on loopback.
@Suite struct AbuseLimitTests {
    // MARK: M5 registrations

    @Test func m5_registrationCapAnswers429NamingTheCap() async throws {
        var server = try TestServer()
        server.limits.maximumRegistrationsPerOrder = 3
        defer { server.remove() }
        try await server.run { client in
            let order = try await client.createOrder().details
            for device in 1...3 {
                #expect(try await Self.register(client, order, device: "device-\(device)", pushToken: device).status == .created)
            }
            let refused = try await Self.register(client, order, device: "device-4", pushToken: 4)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.json["error"]?["code"] == "registration_limit_reached")
            #expect(refused.json["error"]?["type"] == "rate_limit_error")
            let message = try #require(refused.json["error"]?["message"]?.stringValue)
            #expect(message.contains("3 registered devices") && message.contains("--max-registrations-per-order"), "\(message)")
            // Registering a known device again, even with a new push token, is no new registration.
            #expect(try await Self.register(client, order, device: "device-1", pushToken: 11).status == .ok)
            #expect(try await client.store.registrations(orderTypeIdentifier: order.type, orderIdentifier: order.id).count == 3)
            // Unregistering frees a place.
            let path = "/wallet/v1/devices/device-2/registrations/\(order.type)/\(order.id)"
            #expect(try await client.device(.delete, path, token: order.token).status == .ok)
            #expect(try await Self.register(client, order, device: "device-4", pushToken: 4).status == .created)
        }
    }

    /// Many registrations at once (on PostgreSQL when the suite runs there) never pass the cap: the store counts and
    /// inserts under the order's row lock.
    @Test func m5_concurrentRegistrationsNeverExceedTheCap() async throws {
        var server = try TestServer()
        server.limits = .unlimited
        server.limits.maximumRegistrationsPerOrder = 5
        defer { server.remove() }
        try await server.run { client in
            let order = try await client.createOrder().details
            let base = "http://127.0.0.1:\(client.port)"
            let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        var request = HTTPClientRequest(url: "\(base)/wallet/v1/devices/device-\(index)/registrations/\(order.type)/\(order.id)")
                        request.method = .POST
                        request.headers.add(name: "Authorization", value: "AppleOrder \(order.token)")
                        request.body = .bytes(
                            ByteBuffer(bytes: (["pushToken": .string(String(format: "%064x", index + 1))] as JSONValue).serialized()))
                        return try await HTTPClient.shared.execute(request, timeout: .seconds(60)).status.code
                    }
                }
                return try await group.reduce(into: [UInt]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 5, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 35, "\(statuses)")
            #expect(try await client.store.registrations(orderTypeIdentifier: order.type, orderIdentifier: order.id).count == 5)
        }
    }

    // MARK: M5 request rates

    @Test func m5_clientAddressRateAnswers429WithRetryAfter() async throws {
        var server = try TestServer()
        server.limits.perClientAddress = RateLimit(perSecond: Self.noRefill, burst: 5)
        defer { server.remove() }
        try await server.run { client in
            for _ in 0..<5 { #expect(try await client.call(.get, "/healthz").status == .ok) }
            let refused = try await client.call(.get, "/healthz")
            try Self.expectRateLimited(refused, naming: "--rate-limit-per-address")
        }
    }

    /// Behind a proxy the address it names counts, so one noisy client does not exhaust everyone's allowance.
    @Test func m5_clientAddressFromATrustedProxyHeader() async throws {
        var server = try TestServer()
        server.limits.perClientAddress = RateLimit(perSecond: Self.noRefill, burst: 2)
        server.limits.clientAddressHeader = "X-Forwarded-For"
        defer { server.remove() }
        try await server.run { client in
            let noisy: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9, 198.51.100.7"]
            for _ in 0..<2 { #expect(try await client.call(.get, "/healthz", headers: noisy).status == .ok) }
            try Self.expectRateLimited(try await client.call(.get, "/healthz", headers: noisy), naming: "--rate-limit-per-address")
            let other: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "198.51.100.8"]
            #expect(try await client.call(.get, "/healthz", headers: other).status == .ok)
        }
    }

    @Test func m5_orderTokenRateAnswers429WithRetryAfterAndSparesOtherOrders() async throws {
        var server = try TestServer()
        server.limits.perOrderToken = RateLimit(perSecond: Self.noRefill, burst: 3)
        defer { server.remove() }
        try await server.run { client in
            let order = try await client.createOrder().details
            let other = try await client.createOrder().details
            let path = "/wallet/v1/orders/\(order.type)/\(order.id)"
            for _ in 0..<3 { #expect(try await client.device(.get, path, token: order.token).status == .ok) }
            try Self.expectRateLimited(try await client.device(.get, path, token: order.token), naming: "--rate-limit-per-order-token")
            #expect(try await client.device(.get, "/wallet/v1/orders/\(other.type)/\(other.id)", token: other.token).status == .ok)
            #expect(try await client.merchant(.get, "/api/v1/orders").status == .ok)
        }
    }

    @Test func m5_apiKeyRateAnswers429WithRetryAfter() async throws {
        var server = try TestServer()
        server.limits.perAPIKey = RateLimit(perSecond: Self.noRefill, burst: 3)
        defer { server.remove() }
        try await server.run { client in
            for _ in 0..<3 { #expect(try await client.merchant(.get, "/api/v1/orders").status == .ok) }
            try Self.expectRateLimited(try await client.merchant(.get, "/api/v1/orders"), naming: "--rate-limit-per-api-key")
            #expect(try await client.call(.get, "/healthz").status == .ok, "requests without the key are not affected")
        }
    }

    @Test func m5_repeated401sFromOneAddressBackOff() async throws {
        var server = try TestServer()
        // One token per 4 s, on a clock that moves only when the test says: no refill before the test waits out
        // Retry-After, however slow the machine.
        let clock = TestClock()
        server.clock = ServerClock(clock, startingAt: Date())
        server.limits.failedAuthentication = RateLimit(perSecond: 0.25, burst: 3)
        defer { server.remove() }
        try await server.run { client in
            let wrong: HTTPFields = [.authorization: "Bearer sk_wrong_key_0000000000000000"]
            for _ in 0..<3 { #expect(try await client.call(.get, "/api/v1/orders", headers: wrong).status == .unauthorized) }
            // Past the allowance every credential from this address waits, the right one included: guessing stops.
            try Self.expectRateLimited(try await client.call(.get, "/api/v1/orders", headers: wrong), naming: "--rate-limit-failed-auth")
            let refused = try await client.merchant(.get, "/api/v1/orders")
            try Self.expectRateLimited(refused, naming: "--rate-limit-failed-auth")
            #expect(try await client.call(.get, "/healthz").status == .ok, "requests without credentials are served")
            // A back-off, not a lock-out: after Retry-After the right key works again.
            let retryAfter = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
            clock.advance(by: .seconds(retryAfter))
            #expect(try await client.merchant(.get, "/api/v1/orders").status == .ok)
        }
    }

    // MARK: M6 device log

    @Test func m6_deviceLogEscapesControlCharacters() async throws {
        var server = try TestServer()
        server.logLevel = .notice
        defer { server.remove() }
        let log = RecordingLogHandler.Entries()
        let logger = Logger(label: "m6", factory: { _ in RecordingLogHandler(entries: log) })
        try await server.run(logger: logger) { client in
            let forged = "hello\n2026-11-22T12:00:00+0000 error ordertrack: FORGED admin login\r\u{1B}[2K\u{7}\u{85}\u{2028}done"
            let payload = (["logs": [.string(forged)]] as JSONValue).serialized()
            let reply = try await client.call(.post, "/wallet/v1/log", body: payload)
            #expect(reply.status == .ok)
        }
        let lines = log.lines.filter { $0.hasPrefix("device log ") }
        let line = try #require(lines.first, "\(log.lines)")
        #expect(lines.count == 1)
        #expect(!line.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{2028}" }, "\(line.debugDescription)")
        #expect(line.contains(#"hello\n2026-11-22T12:00:00+0000 error ordertrack: FORGED admin login\r\u{1B}[2K\u{7}\u{85}\u{2028}done"#), "\(line)")
    }

    @Test func m6_deviceLogIsRateLimitedAndSampledWithinAByteBudgetPerClient() async throws {
        var server = try TestServer()
        server.logLevel = .notice
        server.limits.deviceLogRequests = RateLimit(perSecond: Self.noRefill, burst: 2)
        server.limits.deviceLogBytes = RateLimit(perSecond: 1, burst: 100)
        defer { server.remove() }
        let log = RecordingLogHandler.Entries()
        let logger = Logger(label: "m6", factory: { _ in RecordingLogHandler(entries: log) })
        try await server.run(logger: logger) { client in
            // Five entries of 40 bytes: two fit the 100-byte budget, three are dropped and counted.
            let entries = (0..<5).map { JSONValue.string("entry \($0) " + String(repeating: "x", count: 32)) }
            #expect(try await client.call(.post, "/wallet/v1/log", body: (["logs": .array(entries)] as JSONValue).serialized()).status == .ok)
            #expect(try await client.call(.post, "/wallet/v1/log", body: (["logs": ["more"]] as JSONValue).serialized()).status == .ok)
            try Self.expectRateLimited(
                try await client.call(.post, "/wallet/v1/log", body: (["logs": ["flood"]] as JSONValue).serialized()),
                naming: "--rate-limit-device-log")
        }
        let messages = log.lines
        #expect(messages.filter { $0.contains("entry ") }.count == 2, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("device log entries dropped") && $0.contains("dropped=3") }, "\(messages)")
        #expect(!messages.contains { $0.contains("flood") })
    }

    // MARK: M9 slow clients

    @Test func m9_headersSentSlowlyAreCutAtTheIdleTimeout() async throws {
        var server = try TestServer()
        server.idleTimeout = .seconds(2)
        defer { server.remove() }
        try await server.run { client in
            // A header line every 300 ms, for up to 20 s: the head is never complete.
            let chunks = ["GET /healthz HTTP/1.1\r\nHost: localhost\r\n"] + (0..<66).map { "X-Slow-\($0): 1\r\n" }
            let trickle = try await Self.trickle(port: client.port, chunks: chunks.map { Array($0.utf8) }, every: .milliseconds(300))
            #expect(trickle.closedByServer, "the server kept the connection for \(trickle.elapsed)")
            #expect(trickle.elapsed >= .seconds(2) && trickle.elapsed < .seconds(5), "cut at the idle timeout: \(trickle.elapsed)")
            // A new connection is served (the test client's own idle connection was closed by the same timeout).
            let fresh = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(client.port)/healthz"), timeout: .seconds(10))
            #expect(fresh.status == .ok)
        }
    }

    @Test func m9_aBodySentSlowlyIsCutAtTheBodyDeadline() async throws {
        var server = try TestServer()
        server.requestBodyTimeout = .seconds(2)
        defer { server.remove() }
        try await server.run { client in
            // Headers at once, then one body byte every 300 ms: each byte keeps the connection from being idle.
            let head = "POST /wallet/v1/log HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
            let chunks = [Array(head.utf8)] + (0..<66).map { _ in Array(" ".utf8) }
            let trickle = try await Self.trickle(port: client.port, chunks: chunks, every: .milliseconds(300))
            #expect(trickle.closedByServer, "the server kept the connection for \(trickle.elapsed)")
            #expect(trickle.elapsed >= .seconds(2) && trickle.elapsed < .seconds(5), "cut at the body deadline: \(trickle.elapsed)")
            let answer = String(decoding: trickle.received, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
            #expect(answer.contains("body_timeout"))
        }
    }

    // MARK: Lows

    @Test func l4_weakMerchantChosenTokensAreRefused() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            for weak in ["aaaaaaaaaaaaaaaa", "0123456789abcdef", "abababababababababababababababab", "order-1001-token"] {
                var content = SampleContent.order
                content["authenticationToken"] = .string(weak)
                let refused = try await client.merchant(.post, "/api/v1/orders", json: content)
                #expect(refused.status == .unprocessableContent, "\(weak): \(refused.text)")
                let problems = refused.json["error"]?["problems"]?.arrayValue ?? []
                #expect(problems.contains { $0["path"] == "authenticationToken" }, "\(weak): \(refused.text)")
            }
            var strong = SampleContent.order
            strong["authenticationToken"] = "Zq3v9XkP2mR8tW4yB7nC1d"
            #expect(try await client.merchant(.post, "/api/v1/orders", json: strong).status == .created)
            #expect(try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order).status == .created, "generated tokens always pass")
        }
    }

    @Test func l8_bearerSchemeIsMatchedWithoutRegardToCase() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
                let reply = try await client.call(.get, "/api/v1/orders", headers: [.authorization: "\(scheme) \(client.apiKey)"])
                #expect(reply.status == .ok, "\(scheme): \(reply.text)")
            }
        }
    }

    @Test func l12_packageDownloadNamesTheFileWithAnASCIIFallbackAndFilenameStar() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            var content = SampleContent.order
            content["orderNumber"] = "Commande-été-42"
            let order = try await client.createOrder(content).details
            let download = try await client.merchant(.get, "/api/v1/orders/\(order.type)/\(order.id)/package")
            #expect(download.status == .ok)
            let disposition = try #require(download.headers[.contentDisposition])
            #expect(disposition.unicodeScalars.allSatisfy { $0.isASCII }, "\(disposition)")
            #expect(disposition == "attachment; filename=\"Commande-_t_-42.order\"; filename*=UTF-8''Commande-%C3%A9t%C3%A9-42.order")
            // A plain ASCII number needs no filename*.
            let plain = try await client.createOrder(SampleContent.order(number: "1001")).details
            let plainDownload = try await client.merchant(.get, "/api/v1/orders/\(plain.type)/\(plain.id)/package")
            #expect(plainDownload.headers[.contentDisposition] == "attachment; filename=\"1001.order\"")
        }
    }

    // MARK: Helpers

    static func register(_ client: Client, _ order: (type: String, id: String, token: String), device: String, pushToken: Int) async throws
        -> Client.Reply
    {
        try await client.device(
            .post, "/wallet/v1/devices/\(device)/registrations/\(order.type)/\(order.id)", token: order.token,
            json: ["pushToken": .string(String(format: "%064x", pushToken))])
    }

    /// A 429 in the error envelope with a `Retry-After` of whole seconds, whose message names the limit's flag.
    /// A refill rate no test outlasts: a test that expects a refusal after a burst must not depend on how fast the
    /// loaded machine sends the burst.
    static let noRefill = 0.001

    static func expectRateLimited(_ reply: Client.Reply, naming flag: String) throws {
        #expect(reply.status == .tooManyRequests, "\(reply.status) \(reply.text)")
        let retryAfter = try #require(reply.headers[.retryAfter].flatMap { Int($0) }, "Retry-After in \(reply.headers)")
        #expect(retryAfter >= 1)
        #expect(reply.json["error"]?["type"] == "rate_limit_error")
        #expect(reply.json["error"]?["code"] == "rate_limited")
        #expect(reply.json["error"]?["message"]?.stringValue?.contains(flag) == true, "\(reply.text)")
    }

    struct Trickle {
        /// Whether the server closed the connection (rather than the client giving up after the last chunk).
        var closedByServer: Bool
        var elapsed: Duration
        var received: [UInt8]
    }

    /// Sends `chunks` to a new connection one every `interval`, reading whatever the server answers, until the server
    /// closes the connection or 5 s after the last chunk.
    static func trickle(port: Int, chunks: [[UInt8]], every interval: Duration) async throws -> Trickle {
        try await RawSocket.with(port: port, receiveTimeout: interval) { socket in
            let started = ContinuousClock.now
            var received: [UInt8] = []
            var pending = chunks[...]
            var quietSince = ContinuousClock.now
            while true {
                if let chunk = pending.popFirst() {
                    if socket.send(chunk[...]) <= 0 {
                        return Trickle(closedByServer: true, elapsed: ContinuousClock.now - started, received: received)
                    }
                    quietSince = ContinuousClock.now
                } else if ContinuousClock.now - quietSince > .seconds(5) {
                    return Trickle(closedByServer: false, elapsed: ContinuousClock.now - started, received: received)
                }
                // Waits up to one interval for an answer or the close.
                switch socket.receive() {
                case .bytes(let chunk): received += chunk
                case .closed: return Trickle(closedByServer: true, elapsed: ContinuousClock.now - started, received: received)
                case .timedOut: continue
                }
            }
        }
    }
}
