import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OrderModel
import OrderTrackServer
import Synchronization

/// Measures `POST /api/v1/orders/bulk` against the same updates sent as single `PATCH`es over concurrent connections,
/// in the same run, on the same orders.
struct BenchBulkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bulk",
        abstract:
            "Benchmark bulk updates (build with -c release): orders updated per second by one NDJSON request against single PATCHes over concurrent connections, alternating, on SQLite (and PostgreSQL with --postgres)."
    )

    @Option(help: "Also run on this PostgreSQL database (postgres://…), in a new schema bench_<random>, dropped at the end")
    var postgres: String?

    @Option(help: "Orders, each updated once per round")
    var orders = 2000

    @Option(help: "Concurrent connections for the single PATCHes")
    var connections = 16

    @Option(help: "Rounds; each runs single PATCHes and one bulk request, in alternating order, and the best of each counts")
    var rounds = 2

    func validate() throws {
        guard orders > 0, orders <= 10_000, connections > 0, rounds > 0 else {
            throw ValidationError("orders must be 1 to 10,000 (one bulk request), connections and rounds positive")
        }
    }

    func run() async throws {
        var databases: [(name: String, url: String?)] = [("SQLite", nil)]
        if let postgres { databases.append(("PostgreSQL", try BenchmarkServer.freshPostgresSchema(postgres))) }
        for database in databases {
            print("== \(database.name) ==")
            try await BenchmarkServer.run(databaseURL: database.url) { base, _, credentials in
                try await BenchmarkServer.withHTTPClient(connections: connections) { http in
                    try await measure(http: http, base: base, authorization: "Bearer \(credentials.apiKey)")
                }
            }
        }
    }

    private func measure(http: HTTPClient, base: String, authorization: String) async throws {
        let started = ContinuousClock.now
        let identifiers = try await createOrders(http: http, base: base, authorization: authorization)
        print("orders:            \(orders) created in \(String(format: "%.1f", (ContinuousClock.now - started).inSeconds)) s")
        var best = (patch: 0.0, bulk: 0.0)
        var round = 0
        for index in 0..<rounds {
            // Alternating which goes first keeps a warming cache or a growing table from favouring one side.
            for bulkFirst in index % 2 == 0 ? [false, true] : [true, false] {
                round += 1
                if bulkFirst {
                    best.bulk = max(best.bulk, try await bulk(http: http, base: base, authorization: authorization, identifiers, round: round))
                } else {
                    best.patch = max(best.patch, try await patches(http: http, base: base, authorization: authorization, identifiers, round: round))
                }
            }
        }
        print(
            """
            single PATCHes:    \(String(format: "%.0f", best.patch)) updates/s (\(connections) connections)
            bulk:              \(String(format: "%.0f", best.bulk)) updates/s (one request of \(orders) lines)
            bulk / PATCH:      \(String(format: "%.2f", best.bulk / best.patch))
            """)
    }

    static func patch(round: Int) -> JSONValue {
        ["fulfillments": [["fulfillmentIdentifier": "ship-1", "statusDescription": .string("Round \(round)")]]]
    }

    private func createOrders(http: HTTPClient, base: String, authorization: String) async throws -> [String] {
        let next = Counter()
        return try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<connections {
                group.addTask {
                    var made: [String] = []
                    while let index = next.take(below: orders) {
                        let content: JSONValue = [
                            "orderNumber": .string("BULK-\(index)"),
                            "merchant": ["displayName": "Bench Shop", "merchantIdentifier": "merchant.bench", "url": "https://shop.example.com"],
                            "orderManagementURL": "https://shop.example.com/orders",
                            "payment": ["total": ["amount": "42", "currency": "USD"], "status": "paid"],
                            "lineItems": [["title": "Coffee beans", "quantity": 2, "price": ["amount": "21.00", "currency": "USD"]]],
                            "fulfillments": [["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"]],
                        ]
                        let answer = try await Self.send(http, .POST, "\(base)/api/v1/orders", authorization, content.serialized(), expect: .created)
                        guard let id = (try JSONValue.parse(answer))["orderDetails"]?["orderIdentifier"]?.stringValue else {
                            throw usageError("the create answer lacks orderDetails")
                        }
                        made.append(id)
                    }
                    return made
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    private func patches(http: HTTPClient, base: String, authorization: String, _ identifiers: [String], round: Int) async throws -> Double {
        let body = Self.patch(round: round).serialized()
        let next = Counter()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<connections {
                group.addTask {
                    while let index = next.take(below: identifiers.count) {
                        _ = try await Self.send(
                            http, .PATCH, "\(base)/api/v1/orders/order.dev.ordertrack.demo/\(identifiers[index])", authorization, body, expect: .ok)
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(identifiers.count) / (ContinuousClock.now - start).inSeconds
    }

    private func bulk(http: HTTPClient, base: String, authorization: String, _ identifiers: [String], round: Int) async throws -> Double {
        let patch = Self.patch(round: round)
        var body: [UInt8] = []
        for identifier in identifiers {
            body += (["orderIdentifier": .string(identifier), "patch": patch] as JSONValue).serialized()
            body.append(UInt8(ascii: "\n"))
        }
        let start = ContinuousClock.now
        let answer = try await Self.send(http, .POST, "\(base)/api/v1/orders/bulk", authorization, body, expect: .ok, timeout: .seconds(600))
        let elapsed = (ContinuousClock.now - start).inSeconds
        let applied = String(decoding: answer, as: UTF8.self).split(separator: "\n").filter { $0.contains("\"result\":\"applied\"") }.count
        guard applied == identifiers.count else { throw usageError("the bulk request applied \(applied) of \(identifiers.count) lines") }
        return Double(identifiers.count) / elapsed
    }

    private static func send(
        _ http: HTTPClient, _ method: HTTPMethod, _ url: String, _ authorization: String, _ body: [UInt8], expect: HTTPResponseStatus,
        timeout: TimeAmount = .seconds(30)
    ) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await http.execute(request, timeout: timeout)
        let bytes = Array(try await response.body.collect(upTo: 64 << 20).readableBytesView)
        guard response.status == expect else {
            throw usageError("\(method) \(url) answered \(response.status): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
        return bytes
    }
}

/// Hands out indexes to concurrent workers.
final class Counter: Sendable {
    private let next = Mutex(0)

    func take(below limit: Int) -> Int? {
        next.withLock { value in
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}
