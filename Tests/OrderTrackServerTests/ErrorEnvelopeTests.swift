import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import OrderModel
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackServer

/// Every answer carries a request id, every error is the JSON envelope (audit M7), HEAD works wherever GET does (L15).
@Suite struct ErrorEnvelopeTests {
    @Test func m7_everyErrorIsTheJSONEnvelopeWithARequestID() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            // Hummingbird's own errors used to be empty bodies: an unknown path, an oversized body.
            let unknown = try await client.call(.get, "/wallet/v1/nothing-here")
            unknown.expectEnvelope(status: .notFound, code: "not_found")
            let huge = try await client.merchant(
                .post, "/api/v1/orders", json: ["orderNumber": .string(String(repeating: "9", count: 5 * 1024 * 1024))])
            huge.expectEnvelope(status: .contentTooLarge, code: "body_too_large")

            // A generated request id on every answer, errors included; unique per request.
            let first = try #require(unknown.headers[.requestID])
            let second = try #require(try await client.call(.get, "/healthz").headers[.requestID])
            #expect(first.count >= 16 && second.count >= 16 && first != second)
            // The caller's id is echoed when it is a sane token, replaced when it is not.
            let echoed = try await client.merchant(.get, "/api/v1/orders", headers: [.requestID: "support-ticket-4711"])
            #expect(echoed.headers[.requestID] == "support-ticket-4711")
            let forged = try await client.merchant(.get, "/api/v1/orders", headers: [.requestID: "a b\"c"])
            #expect(forged.headers[.requestID] != "a b\"c")
            let long = try await client.merchant(.get, "/api/v1/orders", headers: [.requestID: String(repeating: "x", count: 129)])
            #expect(long.headers[.requestID]?.count ?? 0 < 129)
        }
    }

    /// A request's log lines carry the id its answer gives, once: the caller's own in place of the generated one.
    @Test func everyLogLineOfARequestCarriesTheAnsweredIDOnce() async throws {
        var server = try TestServer()
        server.logLevel = .info
        defer { server.remove() }
        let log = RecordingLogHandler.Entries()
        try await server.run(logger: Logger(label: "request-ids", factory: { _ in RecordingLogHandler(entries: log) })) { client in
            let order = try await client.createOrder()
            let path = "/wallet/v1/orders/\(order.type)/\(order.id)"
            let generated = try #require(try await client.device(.get, path, token: order.token).headers[.requestID])
            let supplied = try await client.device(.get, path, token: order.token, headers: [.requestID: "support-ticket-4711"])
            #expect(supplied.headers[.requestID] == "support-ticket-4711")
            for id in [generated, "support-ticket-4711"] {
                try await Poll.expect(within: .seconds(5)) { log.lines.contains { $0.hasPrefix("wallet call ") && $0.contains(id) } }
                let line = log.lines.first { $0.hasPrefix("wallet call ") && $0.contains(id) } ?? ""
                #expect(line.contains("hb.request.id=\(id)"), "\(line)")
                #expect(line.components(separatedBy: "id=").count == 2, "one id per line: \(line)")
                #expect(line.range(of: #"latency_ms=[0-9]+\.[0-9]{2}( |$)"#, options: .regularExpression) != nil, "\(line)")
            }
        }
    }

    @Test func aDeviceCallsLatencyIsLoggedInMillisecondsWithTwoDecimals() {
        #expect(Duration.zero.millisecondsText == "0.00")
        #expect(Duration.microseconds(4).millisecondsText == "0.00")
        #expect(Duration.microseconds(5).millisecondsText == "0.01")
        #expect(Duration.microseconds(70).millisecondsText == "0.07")
        #expect(Duration.microseconds(3_070).millisecondsText == "3.07")
        #expect(Duration.milliseconds(12_345).millisecondsText == "12345.00")
        #expect(Duration.nanoseconds(-1).millisecondsText == "0.00")
    }

    /// A client that hangs up in the middle of a body (the soak's dropped connections) is its own fault: a 400 nobody
    /// reads, no error line in the operator's log, nothing written.
    @Test func aConnectionEndedMidBodyIsNoServerFault() async throws {
        var server = try TestServer()
        server.logLevel = .info
        defer { server.remove() }
        let log = RecordingLogHandler.Entries()
        try await server.run(logger: Logger(label: "hang-up", factory: { _ in RecordingLogHandler(entries: log) })) { client in
            let order = try await client.createOrder()
            let path = "/wallet/v1/devices/device-1/registrations/\(order.type)/\(order.id)"
            let head = """
                POST \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: AppleOrder \(order.token)\r\n\
                Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"pushToken":
                """
            try await RawSocket.with(port: client.port, receiveTimeout: .milliseconds(300)) { socket in
                _ = socket.send(Array(head.utf8)[...])
                _ = socket.receive()
            }
            // The device-call log line says how the server answered the call it could not finish reading.
            try await Poll.expect(within: .seconds(5)) { log.lines.contains { $0.contains("wallet call") && $0.contains(path) } }
            let line = log.lines.first { $0.contains("wallet call") && $0.contains(path) } ?? ""
            #expect(line.contains("status=400"), "\(line)")
            #expect(log.messages(atLeast: .error).isEmpty, "\(log.lines)")
            #expect(try await client.store.registrations(orderTypeIdentifier: order.type, orderIdentifier: order.id).isEmpty, "nothing registered")
        }
    }

    @Test func l15_headIsAnsweredWhereverGetIs() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let health = try await client.call(.head, "/healthz")
            #expect(health.status == .ok)
            #expect(health.body.isEmpty)
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            let details = try #require(created.json["orderDetails"])
            let path = "/wallet/v1/orders/\(details["orderTypeIdentifier"]!.stringValue!)/\(details["orderIdentifier"]!.stringValue!)"
            let token = details["authenticationToken"]!.stringValue!
            let get = try await client.device(.get, path, token: token)
            let head = try await client.device(.head, path, token: token)
            #expect(head.status == .ok && head.body.isEmpty)
            #expect(head.headers[.lastModified] == get.headers[.lastModified])
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(try await client.device(.head, path, token: "wrong").status == .unauthorized)
        }
    }
}
