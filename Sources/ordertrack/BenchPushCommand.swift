import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import OrderModel
import OrderPersistence
import OrderTrackBenchmarks
import OrderTrackServer

/// End-to-end push fan-out: one order change, N registered devices, through the durable outbox to an APNs endpoint
/// (a local `ordertrack mock-apns`; `scripts/bench-push` runs it with aioapns as the baseline in the same run).
struct BenchPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Benchmark push fan-out through the outbox to a local APNs (build with -c release; see scripts/bench-push).")

    @Option(help: "Registered devices to push to")
    var devices = 100_000

    @Option(help: "APNs endpoint, e.g. https://127.0.0.1:PORT of `ordertrack mock-apns`")
    var apnsEndpoint: String

    @Option(help: "Root certificate (PEM) the endpoint's TLS certificate chains to")
    var apnsCAFile: String

    @Option(help: "Pushes in flight at once")
    var concurrency = 1000

    @Option(help: "Run on this PostgreSQL database (postgres://…) instead of SQLite, in a new schema bench_<random>, dropped at the end")
    var postgres: String?

    func validate() throws {
        guard devices > 0, concurrency > 0 else { throw ValidationError("--devices and --concurrency must be positive") }
    }

    func run() async throws {
        guard let endpoint = URL(string: apnsEndpoint), let caData = FileManager.default.contents(atPath: apnsCAFile) else {
            throw usageError("--apns-endpoint must be a URL and --apns-ca-file a readable PEM file")
        }
        let push = PushConfiguration(endpoint: endpoint, extraTrustRootsPEM: String(decoding: caData, as: UTF8.self), concurrency: concurrency)
        let databaseURL = try postgres.map(BenchmarkServer.freshPostgresSchema)
        print("database: \(databaseURL == nil ? "SQLite" : "PostgreSQL")")
        try await BenchmarkServer.run(push: push, databaseURL: databaseURL) { base, store, credentials in
            try await measure(base: base, store: store, credentials: credentials)
        }
    }

    private func measure(base: String, store: any OrderStore, credentials: DevelopmentCredentials) async throws {
        guard let store = store as? SQLOrderStore else { throw usageError("seeding needs the SQL store") }
        let http = HTTPClient.shared
        let content: JSONValue = [
            "merchant": ["displayName": "Bench Shop", "merchantIdentifier": "merchant.bench", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders/1",
        ]
        let created = try await call(http, .POST, "\(base)/api/v1/orders", key: credentials.apiKey, body: content)
        guard let id = created["orderDetails"]?["orderIdentifier"]?.stringValue else { throw usageError("could not create the order: \(created)") }
        let type = credentials.orderTypeIdentifier
        let started = ContinuousClock.now
        try await store.insertRegistrations(
            (0..<devices).map { index in
                Registration(
                    deviceLibraryIdentifier: "bench-device-\(index)", pushToken: String(format: "%064x", index + 1), orderTypeIdentifier: type,
                    orderIdentifier: id, registeredAt: Date())
            })
        print("registered \(devices) devices in \(String(format: "%.1f", (ContinuousClock.now - started).inSeconds)) s")
        // PostgreSQL announces each registration: the fan-out is measured once the server has read them, as it would have
        // long before a real order's update.
        try await store.waitForAnnouncementsToBeRead(timeout: .seconds(120))

        let changedAt = Date()
        _ = try await call(http, .PATCH, "\(base)/api/v1/orders/\(type)/\(id)", key: credentials.apiKey, body: ["status": "completed"])
        let answeredAt = Date()
        // Not counting the queue, a scan that would compete with the fan-out for the CPU; the times come from the push
        // log, which says when each push was answered.
        while try await store.hasQueuedPushes() {
            try await Task.sleep(for: .milliseconds(100))
        }
        let log = try await store.pushLog(orderTypeIdentifier: type, orderIdentifier: id, limit: devices * 2)
        let delivered = log.filter { $0.outcome == .delivered }
        let latencies = delivered.map { $0.at.timeIntervalSince(changedAt) * 1000 }.sorted()
        let elapsed = (latencies.last ?? 0) / 1000
        let p99 = latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
        print(
            """
            ordertrack: \(delivered.count) of \(devices) pushes delivered in \(String(format: "%.2f", elapsed)) s: \(String(format: "%.0f", Double(delivered.count) / elapsed)) pushes/s
            ordertrack: enqueue-to-delivery p50 \(String(format: "%.0f", latencies.isEmpty ? 0 : latencies[latencies.count / 2])) ms, p99 \(String(format: "%.0f", p99)) ms
            ordertrack: PATCH answered after \(String(format: "%.0f", answeredAt.timeIntervalSince(changedAt) * 1000)) ms, first push delivered after \(String(format: "%.0f", latencies.first ?? 0)) ms
            """)
    }

    private func call(_ http: HTTPClient, _ method: HTTPMethod, _ url: String, key: String, body: JSONValue) async throws -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.body = .bytes(ByteBuffer(bytes: body.serialized()))
        let response = try await http.execute(request, timeout: .seconds(120))
        return try JSONValue.parse(try await response.body.collect(upTo: 1 << 20).readableBytesView)
    }

}
