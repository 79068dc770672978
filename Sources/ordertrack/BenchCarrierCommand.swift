import ArgumentParser
import AsyncHTTPClient
import CarrierTracking
import Foundation
import MockAPNs
import NIOCore
import NIOHTTP1
import OrderModel
import OrderPersistence
import OrderTrackBenchmarks
import OrderTrackServer
import Synchronization

/// Carrier tracking webhooks end to end, in generic signed events: how many verified events per second the webhook
/// stores against `/healthz` in the same run, and how long a scan takes from its webhook to the pushes of the order's
/// devices arriving at a local mock APNs, at a steady event rate.
struct BenchCarrierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carrier",
        abstract:
            "Benchmark carrier webhooks (build with -c release): stored events/s vs /healthz, and scan-to-APNs latency at a steady event rate; with --postgres also on PostgreSQL."
    )

    @Option(help: "Also run on this PostgreSQL database (postgres://…), in new schemas bench_<random>, dropped at the end")
    var postgres: String?

    @Option(help: "Concurrent connections of the ingest measurement and of the webhook sender")
    var connections = 16

    @Option(help: "Seconds of each ingest measurement (/healthz and the webhook, in ten alternating rounds)")
    var seconds = 5.0

    @Option(help: "Tracked orders the ingest events are about")
    var ingestOrders = 1000

    @Flag(
        inversion: .prefixedNo,
        help: "Apply the ingested events in the background while they arrive, as a server does (--no-worker measures the webhook alone)")
    var worker = true

    @Option(help: "Registered devices of the scan-to-APNs measurement")
    var devices = 10_000

    @Option(help: "Devices per order (orders = devices / devices-per-order)")
    var devicesPerOrder = 1

    @Option(help: "Webhook events per second of the scan-to-APNs measurement")
    var rate = 1000.0

    @Option(help: "Seconds the events are sent for; each order gets at most three (onTheWay, outForDelivery, delivered)")
    var scanSeconds = 10.0

    func validate() throws {
        guard connections > 0, seconds > 0, ingestOrders > 0, devices > 0, devicesPerOrder > 0, rate > 0, scanSeconds > 0 else {
            throw ValidationError("every count, rate and duration must be positive")
        }
        guard devices % devicesPerOrder == 0 else { throw ValidationError("--devices must be a multiple of --devices-per-order") }
        guard Int(rate * scanSeconds) >= 1, Int(rate * scanSeconds) <= 3 * (devices / devicesPerOrder) else {
            throw ValidationError("rate × scan-seconds events must be at least 1 and at most three per order (\(3 * devices / devicesPerOrder))")
        }
    }

    func run() async throws {
        var databases: [(name: String, url: String?)] = [("SQLite", nil)]
        if let postgres { databases.append(("PostgreSQL", postgres)) }
        var lines: [String] = []
        for database in databases {
            print("== \(database.name) ==")
            let ingest = try await measureIngest(databaseURL: try database.url.map(BenchmarkServer.freshPostgresSchema))
            let scan = try await measureScanToAPNs(databaseURL: try database.url.map(BenchmarkServer.freshPostgresSchema))
            let target = database.url == nil ? 1000.0 : 2000.0
            lines.append(
                """
                \(database.name): ingest \(String(format: "%.0f", ingest.events)) events/s vs /healthz \(String(format: "%.0f", ingest.health)) req/s: \
                ratio \(String(format: "%.2f", ingest.events / ingest.health)) (target ≥ 0.50, \(ingest.events / ingest.health >= 0.5 ? "met" : "MISSED"); \
                worker \(worker ? "on" : "off"))
                \(database.name): scan to APNs at \(String(format: "%.0f", scan.sendRate)) events/s sent: p50 \(Self.ms(scan.p50)) p99 \(Self.ms(scan.p99)) \
                max \(Self.ms(scan.max)) ms, \(scan.delivered) of \(scan.events) events pushed (target p99 ≤ \(Int(target)) ms, \
                \(scan.delivered == scan.events && scan.p99 * 1000 <= target ? "met" : "MISSED"))
                """)
        }
        print("== summary ==\n" + lines.joined(separator: "\n"))
    }

    // MARK: - Ingest

    private struct Ingest {
        var health: Double
        var events: Double
    }

    private func measureIngest(databaseURL: String?) async throws -> Ingest {
        try await BenchmarkServer.run(databaseURL: databaseURL, applyCarrierEvents: worker) { base, store, credentials in
            try await withHTTPClient { http in
                let setup = try await Setup.make(http: http, base: base, store: store, credentials: credentials)
                let seed = setup.seed(orders: ingestOrders, devicesPerOrder: 0, prefix: "ingest")
                let started = ContinuousClock.now
                try await seed.insert(into: setup.store)
                print("seeded \(ingestOrders) tracked orders in \(String(format: "%.1f", (ContinuousClock.now - started).inSeconds)) s")

                // Every parcel's first scan, a real change, before the clock starts: the measured scans change nothing
                // Wallet shows, so no package build or push of theirs runs into a /healthz round.
                let warmUp = setup.signedEvents(count: ingestOrders, seed: seed, run: "warm-up", status: { _ in "onTheWay" })
                _ = try await post(warmUp[...], http: http, url: setup.webhookURL, seconds: 60)
                if worker {
                    try await Self.waitForEmptyInbox(store)
                    try await BenchmarkServer.waitForRest()
                }
                let health = try await BenchmarkServer.load(
                    http: http, connections: connections, url: base + "/healthz", authorization: nil, seconds: 1)
                // Signed before the clock starts, more than the webhook can take at /healthz's pace; valid for 5 minutes.
                let events = setup.signedEvents(
                    count: Int(health.rate * seconds * 1.5) + 1000, seed: seed, run: "ingest", status: { _ in "onTheWay" })
                var next = events.startIndex
                let comparison = try await BenchmarkServer.compare(seconds: seconds) { each in
                    // /healthz on a server at rest, as before the old back-to-back measurement: the worker first applies
                    // what the webhook's rounds stored (not timed).
                    if worker { try await Self.waitForEmptyInbox(store) }
                    return try await BenchmarkServer.load(
                        http: http, connections: connections, url: base + "/healthz", authorization: nil, seconds: each)
                } subject: { each in
                    let round = try await post(events[next...], http: http, url: setup.webhookURL, seconds: each)
                    next += round.requests
                    return round
                }
                print(
                    """
                    ingest (\(connections) connections, \(String(format: "%g", seconds)) s each in \(comparison.roundRatios.count) alternating rounds, \
                    same run; worker \(worker ? "on: applying events in the background, on the same database; /healthz after it caught up" : "off"):
                      GET /healthz                         \(String(format: "%8.0f", comparison.baseline)) req/s
                      POST /carriers/generic/{id} stored   \(String(format: "%8.0f", comparison.subject)) events/s
                      ratio events / healthz               \(String(format: "%8.2f", comparison.ratio)) (rounds \(comparison.roundRange))   (target ≥ 0.50)
                      CPU per request                      \(comparison.cpuDescription) (this process: server, client\(worker ? ", the worker during the rounds" : ""); not a database server's)
                    """)
                return Ingest(health: comparison.baseline, events: comparison.subject)
            }
        }
    }

    /// Waits until the worker has applied every stored event.
    private static func waitForEmptyInbox(_ store: any OrderStore) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while try await store.pendingCarrierEventCount() > 0 {
            guard ContinuousClock.now < deadline else { throw usageError("the worker did not apply the stored events within 120 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Events stored over at most `seconds`, `connections` senders each waiting for its previous answer; stops early
    /// when the events run out. The events sent are the first `requests` of `events`.
    private func post(_ events: ArraySlice<SignedEvent>, http: HTTPClient, url: String, seconds: Double) async throws -> BenchmarkServer.Round {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let cursor = EventCursor(events.startIndex)
        return try await BenchmarkServer.Round.measure {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        var count = 0
                        while ContinuousClock.now < deadline {
                            let index = cursor.take()
                            guard index < events.endIndex else { break }
                            try await Self.send(events[index], http: http, url: url)
                            count += 1
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
        }
    }

    /// Hands the senders the next event's index, so the events a round sends are one run from the start.
    private final class EventCursor: Sendable {
        private let next: Atomic<Int>

        init(_ start: Int) {
            next = Atomic(start)
        }

        func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
    }

    // MARK: - Scan to APNs

    private struct ScanResult {
        var events: Int
        var delivered: Int
        var sendRate: Double
        var p50: Double
        var p99: Double
        var max: Double
    }

    private func measureScanToAPNs(databaseURL: String?) async throws -> ScanResult {
        let arrivals = PushArrivals()
        let mock = try await LocalMockAPNs.start { arrivals.record($0) }
        do {
            let push = PushConfiguration(endpoint: mock.endpoint, extraTrustRootsPEM: mock.trustRootPEM)
            let result = try await BenchmarkServer.run(push: push, databaseURL: databaseURL) { base, store, credentials in
                try await withHTTPClient { http in
                    try await measureScanToAPNs(
                        http: http, base: base, store: store, credentials: credentials, arrivals: arrivals,
                        target: databaseURL == nil ? "1,000 ms on SQLite" : "2,000 ms on PostgreSQL")
                }
            }
            try await mock.server.shutdown()
            return result
        } catch {
            try? await mock.server.shutdown()
            throw error
        }
    }

    private func measureScanToAPNs(
        http: HTTPClient, base: String, store: any OrderStore, credentials: DevelopmentCredentials, arrivals: PushArrivals, target: String
    ) async throws -> ScanResult {
        let setup = try await Setup.make(http: http, base: base, store: store, credentials: credentials)
        let orders = devices / devicesPerOrder
        let seed = setup.seed(orders: orders, devicesPerOrder: devicesPerOrder, prefix: "scan")
        let started = ContinuousClock.now
        try await seed.insert(into: setup.store)
        print(
            "seeded \(orders) tracked orders × \(devicesPerOrder) device\(devicesPerOrder == 1 ? "" : "s") in \(String(format: "%.1f", (ContinuousClock.now - started).inSeconds)) s"
        )
        try await setup.store.waitForAnnouncementsToBeRead(timeout: .seconds(120))
        arrivals.expect(seed)

        // Event j is about order j % orders; its round j / orders moves the parcel one status on.
        let statuses = ["onTheWay", "outForDelivery", "delivered"]
        let count = Int(rate * scanSeconds)
        let events = setup.signedEvents(count: count, seed: seed, run: "scan", status: { statuses[$0 / orders] })
        let interval = Duration.seconds(1 / rate)
        var sentAt: [ContinuousClock.Instant] = []
        sentAt.reserveCapacity(count)
        let (start, cpu) = (ContinuousClock.now, BenchmarkServer.processCPUSeconds())
        try await withThrowingDiscardingTaskGroup { group in
            for (index, event) in events.enumerated() {
                let due = start + interval * index
                if ContinuousClock.now < due { try await Task.sleep(until: due, clock: .continuous) }
                sentAt.append(ContinuousClock.now)
                group.addTask { try await Self.send(event, http: http, url: setup.webhookURL) }
            }
        }
        let sendRate = Double(count) / ((sentAt.last ?? start) - start).inSeconds.nonZero
        // Waits for the last pushes: every device of every event's order, or a minute without a new one.
        var lastSeen = (count: -1, at: ContinuousClock.now)
        while arrivals.count < count * devicesPerOrder {
            let seen = arrivals.count
            if seen != lastSeen.count {
                lastSeen = (seen, ContinuousClock.now)
            } else if ContinuousClock.now - lastSeen.at > .seconds(60) {
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        // From the first event sent to the last push (or a minute past it): at the rate asked, the share of the two
        // cores the scan needs, without the database server's.
        let cpuPerEvent = (BenchmarkServer.processCPUSeconds() - cpu) / Double(count)
        // An event's latency is until the last of its order's devices got the push of its round.
        var latencies: [Double] = []
        for (index, sent) in sentAt.enumerated() {
            let order = index % orders
            let round = index / orders
            let received = (0..<devicesPerOrder).map { arrivals.arrival(order: order, device: $0, round: round, seed: seed) }
            guard received.allSatisfy({ $0 != nil }), let last = received.compactMap({ $0 }).max() else { continue }
            latencies.append((last - sent).inSeconds)
        }
        latencies.sort()
        func percentile(_ fraction: Double) -> Double {
            latencies.isEmpty ? .infinity : latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
        }
        let result = ScanResult(
            events: count, delivered: latencies.count, sendRate: sendRate, p50: percentile(0.5), p99: percentile(0.99),
            max: latencies.last ?? .infinity)
        print(
            """
            scan to APNs: \(orders) orders × \(devicesPerOrder) device\(devicesPerOrder == 1 ? "" : "s") (\(devices) devices), \
            \(count) events over \(String(format: "%g", scanSeconds)) s, each a forward status change:
              sent                   \(String(format: "%8.0f", sendRate)) events/s (asked \(String(format: "%.0f", rate)))
              pushed                 \(result.delivered) of \(count) events to every device of their order
              webhook to APNs        p50 \(Self.ms(result.p50)) ms, p99 \(Self.ms(result.p99)) ms, max \(Self.ms(result.max)) ms   (target p99 ≤ \(target))
              CPU per event          \(String(format: "%.0f", cpuPerEvent * 1e6)) µs: \(String(format: "%.2f", cpuPerEvent * rate)) cores at \(String(format: "%.0f", rate)) events/s (this process: sender, server, worker, signatures, pushes, mock APNs; not a database server's)
            """)
        return result
    }

    // MARK: - Shared

    private static func ms(_ seconds: Double) -> String { seconds.isFinite ? String(format: "%.0f", seconds * 1000) : "–" }

    private func withHTTPClient<Value>(_ body: (HTTPClient) async throws -> Value) async throws -> Value {
        try await BenchmarkServer.withHTTPClient(connections: connections, body)
    }

    private static func send(_ event: SignedEvent, http: HTTPClient, url: String) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "OrderTrack-Signature", value: event.signature)
        request.body = .bytes(ByteBuffer(bytes: event.body))
        let response = try await http.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .accepted else {
            throw usageError("the webhook answered \(response.status): \(String(buffer: answer))")
        }
    }
}

/// One generic event and its `OrderTrack-Signature` header.
private struct SignedEvent: Sendable {
    var body: [UInt8]
    var signature: String
}

/// A benchmark server ready for webhooks: a generic connection, and a stored order document to seed from.
private struct Setup: Sendable {
    var store: SQLOrderStore
    var credentials: DevelopmentCredentials
    var webhookURL: String
    var secret: String
    var template: [UInt8]

    static func make(http: HTTPClient, base: String, store: any OrderStore, credentials: DevelopmentCredentials) async throws -> Setup {
        guard let store = store as? SQLOrderStore else { throw usageError("seeding needs the SQL store") }
        let secret = "bench-secret-\(UUID().uuidString)"
        let connection = try await call(
            http, "\(base)/api/v1/carrier-connections", key: credentials.apiKey, body: ["provider": "generic", "secret": .string(secret)])
        guard let id = connection["id"]?.stringValue else { throw usageError("could not make the carrier connection: \(connection)") }
        let content: JSONValue = [
            "merchant": ["displayName": "Bench Shop", "merchantIdentifier": "merchant.bench", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders/template",
            "payment": ["total": ["amount": "42.00", "currency": "USD"], "status": "paid"],
            "lineItems": [["title": "Coffee", "quantity": 2]],
            "fulfillments": [
                [
                    "fulfillmentType": "shipping", "fulfillmentIdentifier": "parcel", "status": "shipped", "carrier": "dhl",
                    "trackingNumber": "TEMPLATE",
                ]
            ],
        ]
        let created = try await call(http, "\(base)/api/v1/orders", key: credentials.apiKey, body: content)
        guard let orderID = created["orderDetails"]?["orderIdentifier"]?.stringValue,
            let record = try await store.order(type: credentials.orderTypeIdentifier, id: orderID)
        else { throw usageError("could not create the template order: \(created)") }
        return Setup(
            store: store, credentials: credentials, webhookURL: "\(base)/carriers/generic/\(id)", secret: secret,
            template: record.document)
    }

    func seed(orders: Int, devicesPerOrder: Int, prefix: String) -> TrackedOrderSeed {
        TrackedOrderSeed(
            merchantID: credentials.merchantID, orderTypeIdentifier: credentials.orderTypeIdentifier, template: template, orderCount: orders,
            devicesPerOrder: devicesPerOrder, authenticationTokenPrefix: "\(prefix)-\(UUID().uuidString)-", orderIdentifierPrefix: "\(prefix)-",
            trackingNumberPrefix: "\(prefix.uppercased())")
    }

    /// `count` events, event j about order j % orderCount with `status(j)`, each with a unique id and a later scan
    /// than the one before; signed now.
    func signedEvents(count: Int, seed: TrackedOrderSeed, run: String, status: (Int) -> String) -> [SignedEvent] {
        let now = Date()
        // Scans a while ago, a millisecond apart, so that each is later than the one before and none is in the future.
        let first = now.addingTimeInterval(-3600)
        return (0..<count).map { index in
            let event: JSONValue = [
                "id": .string("\(run)-\(index)"), "trackingNumber": .string(seed.trackingNumber(index % seed.orderCount)), "carrier": "dhl",
                "status": .string(status(index)), "occurredAt": .string(DateTimeFormat.formatRFC3339(first.addingTimeInterval(Double(index) / 1000))),
            ]
            let body = event.serialized()
            return SignedEvent(body: body, signature: GenericEventSigner.signatureHeader(body: body, secret: secret, at: now))
        }
    }

    private static func call(_ http: HTTPClient, _ url: String, key: String, body: JSONValue) async throws -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body.serialized()))
        let response = try await http.execute(request, timeout: .seconds(60))
        let answer = try JSONValue.parse(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        guard response.status == .created else { throw usageError("\(url) answered \(response.status): \(answer)") }
        return answer
    }
}

/// When each device got each of its pushes, as the mock APNs answered them.
private final class PushArrivals: Sendable {
    private struct State {
        var seed: TrackedOrderSeed?
        /// By device (order × devices per order + device), in arrival order.
        var arrivals: [[ContinuousClock.Instant]] = []
        var count = 0
    }

    private let state = Mutex(State())

    /// Starts counting the pushes of `seed`'s devices; others are ignored.
    func expect(_ seed: TrackedOrderSeed) {
        state.withLock {
            $0 = State(seed: seed, arrivals: Array(repeating: [], count: seed.orderCount * seed.devicesPerOrder))
        }
    }

    func record(_ push: RecordedPush) {
        let now = ContinuousClock.now
        guard push.accepted else { return }
        state.withLock { state in
            guard let seed = state.seed, let device = seed.device(ofPushToken: push.deviceToken) else { return }
            state.arrivals[device.order * seed.devicesPerOrder + device.device].append(now)
            state.count += 1
        }
    }

    var count: Int { state.withLock { $0.count } }

    /// When the device got its `round`-th push (from 0).
    func arrival(order: Int, device: Int, round: Int, seed: TrackedOrderSeed) -> ContinuousClock.Instant? {
        state.withLock { state in
            let pushes = state.arrivals[order * seed.devicesPerOrder + device]
            return round < pushes.count ? pushes[round] : nil
        }
    }
}

extension Double {
    /// The value, or the smallest positive double for zero: a divisor.
    fileprivate var nonZero: Double { self == 0 ? .leastNonzeroMagnitude : self }
}
