import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import OrderModel
import OrderPersistence
import OrderTrackBenchmarks
import OrderTrackServer

/// Measures the server over loopback: cached-package GETs against `/healthz` in the same run, and
/// registrations-list latency at two table sizes; with `--postgres`, on SQLite and on PostgreSQL side by side.
struct BenchServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Benchmark the web service over loopback (build with -c release): cached package GET vs /healthz, and registrations-list latency at 10,000 and 1,000,000 rows; with --postgres also on PostgreSQL, side by side."
    )

    @Option(help: "Also run on this PostgreSQL database (postgres://…), in a new schema bench_<random>, dropped at the end")
    var postgres: String?

    @Option(help: "Concurrent connections for the throughput phase")
    var connections = 16

    @Option(help: "Seconds per throughput measurement")
    var seconds = 5.0

    @Option(help: "Orders and registrations of the small table")
    var smallRows = 10_000

    @Option(help: "Orders and registrations of the large table")
    var largeRows = 1_000_000

    @Option(help: "Registrations-list requests per latency measurement")
    var samples = 5000

    func validate() throws {
        guard connections > 0, seconds > 0, smallRows >= 10, largeRows >= smallRows, samples > 0 else {
            throw ValidationError("connections, seconds and samples must be positive, and large-rows ≥ small-rows ≥ 10")
        }
    }

    /// What one database measured.
    private struct Measurement {
        var throughput: BenchmarkServer.Comparison
        var registrations: [RegistrationsResult]
    }

    func run() async throws {
        var databases: [(name: String, url: String?)] = [("SQLite", nil)]
        if let postgres {
            databases.append(("PostgreSQL", try BenchmarkServer.freshPostgresSchema(postgres)))
        }
        var measured: [(name: String, result: Measurement)] = []
        for database in databases {
            print("== \(database.name) ==")
            let result = try await BenchmarkServer.run(databaseURL: database.url) { base, store, credentials in
                try await BenchmarkServer.withHTTPClient(connections: connections) { http in
                    let throughput = try await measureThroughput(http: http, base: base, apiKey: credentials.apiKey)
                    let registrations = try await measureRegistrations(http: http, base: base, store: store, credentials: credentials)
                    return Measurement(throughput: throughput, registrations: registrations)
                }
            }
            measured.append((database.name, result))
        }
        guard measured.count == 2 else { return }
        let (sqlite, postgres) = (measured[0].result, measured[1].result)
        func row(_ label: String, _ a: String, _ b: String) -> String {
            label.padding(toLength: 44, withPad: " ", startingAt: 0) + a.leftPadded(14) + b.leftPadded(14)
        }
        var lines = [row("side by side (one run)", "SQLite", "PostgreSQL")]
        let (a, b) = (sqlite.throughput, postgres.throughput)
        lines.append(row("GET /healthz req/s", String(format: "%.0f", a.baseline), String(format: "%.0f", b.baseline)))
        lines.append(row("GET cached order package req/s", String(format: "%.0f", a.subject), String(format: "%.0f", b.subject)))
        lines.append(row("  ratio package / healthz", String(format: "%.2f", a.ratio), String(format: "%.2f", b.ratio)))
        lines.append(
            row(
                "  ratio's rounds, lowest to highest", a.roundRange, b.roundRange))
        lines.append(
            row(
                "  CPU per request package / healthz", String(format: "%.2fx", a.cpuRatio), String(format: "%.2fx", b.cpuRatio)))
        for (small, large) in zip(sqlite.registrations, postgres.registrations) {
            lines.append(row("registrations list @\(small.rows) rows p50 ms", small.changed.p50, large.changed.p50))
            lines.append(row("registrations list @\(small.rows) rows p99 ms", small.changed.p99, large.changed.p99))
            lines.append(row("  first fetch per device p99 ms", small.first.p99, large.first.p99))
            lines.append(
                row("  seeding to \(small.rows) rows, s", String(format: "%.1f", small.seedSeconds), String(format: "%.1f", large.seedSeconds)))
        }
        print(lines.joined(separator: "\n"))
    }

    private func measureThroughput(http: HTTPClient, base: String, apiKey: String) async throws -> BenchmarkServer.Comparison {
        var create = HTTPClientRequest(url: "\(base)/api/v1/orders")
        create.method = .POST
        create.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
        let content: JSONValue = [
            "merchant": ["displayName": "Bench Shop", "merchantIdentifier": "merchant.bench", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders/1",
            "payment": ["total": ["amount": "42.00", "currency": "USD"], "status": "paid"],
            "lineItems": [["title": "Coffee", "quantity": 2]],
        ]
        create.body = .bytes(ByteBuffer(bytes: content.serialized()))
        let response = try await http.execute(create, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let details = try JSONValue.parse(body.readableBytesView)["orderDetails"]
        guard response.status == .created, let type = details?["orderTypeIdentifier"]?.stringValue,
            let id = details?["orderIdentifier"]?.stringValue, let token = details?["authenticationToken"]?.stringValue
        else { throw usageError("could not create the benchmark order: \(response.status)") }
        let packagePath = "/wallet/v1/orders/\(type)/\(id)"
        _ = try await BenchmarkServer.load(
            http: http, connections: connections, url: base + packagePath, authorization: "AppleOrder \(token)", seconds: 1)

        let throughput = try await BenchmarkServer.compare(
            http: http, connections: connections, baseline: (base + "/healthz", nil), subject: (base + packagePath, "AppleOrder \(token)"),
            seconds: seconds)
        print(
            """
            throughput (\(connections) connections, \(String(format: "%g", seconds)) s each in \(throughput.roundRatios.count) alternating rounds, same run):
              GET /healthz               \(String(format: "%8.0f", throughput.baseline)) req/s
              GET cached order package   \(String(format: "%8.0f", throughput.subject)) req/s
              ratio package / healthz    \(throughput.description)
              CPU per request            \(throughput.cpuDescription) (this process: server and client, not a database server's)
            """)
        return throughput
    }

    private func measureRegistrations(
        http: HTTPClient, base: String, store: any OrderStore, credentials: DevelopmentCredentials
    ) async throws -> [RegistrationsResult] {
        guard let store = store as? SQLOrderStore else { throw usageError("seeding needs the SQL store") }
        let document = Array(#"{"orderTypeIdentifier":"order.dev.ordertrack.demo"}"#.utf8)
        var seeded = 0
        var results: [RegistrationsResult] = []
        for rows in [smallRows, largeRows] {
            let started = ContinuousClock.now
            try await BenchmarkSeed(
                merchantID: credentials.merchantID, orderTypeIdentifier: credentials.orderTypeIdentifier,
                orderCount: rows - seeded, registrationCount: rows - seeded, document: document,
                authenticationTokenPrefix: "bench-token-\(UUID().uuidString)-", orderIdentifierPrefix: "o\(rows)-",
                deviceIdentifierPrefix: "d\(rows)-", pushTokenPrefix: "p\(rows)-"
            ).insert(into: store)
            let seedSeconds = (ContinuousClock.now - started).inSeconds
            print("seeded \(rows - seeded) more orders and registrations in \(String(format: "%.1f", seedSeconds)) s")
            try await store.waitForAnnouncementsToBeRead(timeout: .seconds(300))
            seeded = rows
            // The devices of the first batch registered at the start: listing from tag 0 returns their 10 orders,
            // listing from the latest tag returns nothing changed (204).
            let devices = min(rows, smallRows) / 10
            // Each device's first list on its own: its rows are read into the database's cache then, so the samples
            // after it measure the steady state in which Wallet asks again after every push.
            let first = try await latencies(http: http, base: base, devices: Array(0..<devices), prefix: "d\(smallRows)-", tag: "0")
            let sampled = (0..<samples).map { _ in Int.random(in: 0..<devices) }
            let changed = try await latencies(http: http, base: base, devices: sampled, prefix: "d\(smallRows)-", tag: "0")
            let unchanged = try await latencies(http: http, base: base, devices: sampled, prefix: "d\(smallRows)-", tag: String(Int64.max / 2))
            results.append(RegistrationsResult(rows: rows, seedSeconds: seedSeconds, first: first, changed: changed, unchanged: unchanged))
        }
        print("registrations list, \(samples) sequential requests per row after one first fetch per device (one connection):")
        for result in results {
            print(
                "  \(String(format: "%9d", result.rows)) orders+registrations: 10 changed p50 \(result.changed.p50) ms p99 \(result.changed.p99) ms; nothing changed p50 \(result.unchanged.p50) ms p99 \(result.unchanged.p99) ms; first fetch p50 \(result.first.p50) ms p99 \(result.first.p99) ms"
            )
        }
        if results.count == 2, let small = Double(results[0].changed.p99), let large = Double(results[1].changed.p99) {
            print("  p99 ratio large/small: \(String(format: "%.2f", large / small))")
        }
        return results
    }

    /// Registrations-list latencies at one table size.
    private struct RegistrationsResult {
        var rows: Int
        var seedSeconds: Double
        /// Each device's first fetch.
        var first: Summary
        var changed: Summary
        var unchanged: Summary
    }

    private struct Summary {
        var p50: String
        var p99: String
    }

    /// Latencies of one request per entry of `devices`, one after another.
    private func latencies(http: HTTPClient, base: String, devices: [Int], prefix: String, tag: String) async throws -> Summary {
        var timings: [Double] = []
        timings.reserveCapacity(devices.count)
        for device in devices {
            let request = HTTPClientRequest(
                url: "\(base)/wallet/v1/devices/\(prefix)\(device)/registrations/order.dev.ordertrack.demo?ordersModifiedSince=\(tag)")
            let start = ContinuousClock.now
            let response = try await http.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            timings.append((ContinuousClock.now - start).inSeconds * 1000)
            guard response.status == .ok || response.status == .noContent else { throw usageError("registrations list answered \(response.status)") }
        }
        timings.sort()
        func percentile(_ fraction: Double) -> String {
            String(format: "%.3f", timings[min(timings.count - 1, Int(Double(timings.count) * fraction))])
        }
        return Summary(p50: percentile(0.5), p99: percentile(0.99))
    }

}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
