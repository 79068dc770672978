import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import OrderPackage
import OrderPersistence
@_spi(Benchmarks) import OrderSigning
import OrderTrackBenchmarks
import OrderTrackDashboard
import OrderTrackServer
import ServiceLifecycle
import Synchronization

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmarks (build with -c release).",
        subcommands: [
            BenchPackageCommand.self, BenchServeCommand.self, BenchPushCommand.self, BenchApplePayCommand.self, BenchDashboardCommand.self,
            BenchLookupCommand.self, BenchBulkCommand.self, BenchCarrierCommand.self, BenchInsightsCommand.self, BenchSoakCommand.self,
        ])
}

struct BenchPackageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package",
        abstract: "Build N distinct signed packages and compare with raw RSA-2048 signatures made with the same key in the same run.")

    @Option(help: "Number of orders to build")
    var orders = 2000

    @Option(help: "light (a small logo) or heavy (600 KB of incompressible PNGs)")
    var assets: PackageBenchmark.AssetProfile = .light

    @Option(help: "Concurrent build tasks (default: one per core)")
    var concurrency: Int?

    func validate() throws {
        guard orders > 0 else { throw ValidationError("--orders must be positive") }
    }

    func run() async throws {
        let identity = try DevelopmentIdentity.make(orderTypeIdentifier: "order.com.example.benchmark").identity
        let digest = [UInt8](repeating: 0x5A, count: 320)
        let result = try await PackageBenchmark.run(
            orders: orders, assets: assets, signer: identity,
            concurrency: concurrency ?? ProcessInfo.processInfo.activeProcessorCount,
            rawSign: { _ = try identity.rawSignature(digest) })
        print(
            """
            packages:          \(result.orders) (\(assets.rawValue) assets, \(result.concurrency) tasks)
            packages/s:        \(String(format: "%.0f", result.ordersPerSecond)) (\(String(format: "%.3f", result.millisecondsPerOrder)) ms each, \(result.averagePackageBytes) bytes average)
            RSA-2048 sigs/s:   \(String(format: "%.0f", result.rawSignaturesPerSecond)) (same key and library, \(identity.signatureLibrary), same run)
            cost per package:  \(String(format: "%.2f", result.ratio)) raw signatures
            """)
    }
}

extension PackageBenchmark.AssetProfile: ExpressibleByArgument {}

/// A throwaway server for benchmarks: fresh data directory, quiet logs, bound to a free loopback port.
enum BenchmarkServer {
    /// `url` with a new schema `bench_<random>`, so a benchmark never touches existing tables.
    /// ``run(push:databaseURL:lookup:applyCarrierEvents:_:)`` drops it when its server has stopped; the soak drops it
    /// after its servers have, unless an invariant broke (the schema is then kept for a look).
    static func freshPostgresSchema(_ url: String) throws -> String {
        let schema = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let fresh = url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
        do {
            _ = try PostgresStoreConfiguration(url: fresh)
        } catch {
            throw usageError("--postgres: \(error)")
        }
        freshSchemas.withLock { _ = $0.insert(String(schema)) }
        return fresh
    }

    /// The schemas ``freshPostgresSchema(_:)`` made in this process: the only ones ever dropped.
    private static let freshSchemas = Mutex<Set<String>>([])

    /// Drops the schema of `databaseURL` if this process made it: a `bench serve` run seeds a million orders and
    /// registrations, which would otherwise fill the disk run after run, and which PostgreSQL's autovacuum and
    /// checkpoints would work through during later runs' measurements.
    static func dropFreshSchema(of databaseURL: String?) async throws {
        guard let databaseURL, let configuration = try? PostgresStoreConfiguration(url: databaseURL),
            freshSchemas.withLock({ $0.remove(configuration.schema) != nil })
        else { return }
        var logger = Logger(label: "ordertrack-bench")
        logger.logLevel = .critical
        try await SQLOrderStore.dropPostgresSchema(configuration, logger: logger)
        print("dropped the benchmark's schema \(configuration.schema)")
    }

    /// Runs `body` against a started server with `http://127.0.0.1:PORT`, then stops it and deletes its data directory.
    /// `databaseURL` selects another database than SQLite in that directory; it must be empty. Without
    /// `applyCarrierEvents`, carrier events stay in the inbox.
    ///
    /// Swift's tasks run where `serve` runs them on the same database: on PostgreSQL on NIO's event loops
    /// (``runTasksOnEventLoops()``), for the rest of the process, which is why the benchmarks that compare the two
    /// databases run SQLite first.
    static func run<Value: Sendable>(
        push: PushConfiguration = PushConfiguration(), databaseURL: String? = nil, lookup: LookupConfiguration = LookupConfiguration(),
        applyCarrierEvents: Bool = true,
        _ body: (_ base: String, _ store: any OrderStore, _ credentials: DevelopmentCredentials) async throws -> Value
    ) async throws -> Value {
        if databaseURL != nil {
            if runTasksOnEventLoops() { print("tasks run on the event loops, as serve runs them on PostgreSQL") }
        } else if tasksRunOnEventLoops {
            throw usageError("a SQLite benchmark after a PostgreSQL one would run on the event loops, which serve does not on SQLite")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "ordertrack-bench")
        logger.logLevel = .critical
        var configuration = try ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path, databaseURL: databaseURL, publicURL: "https://bench.example", push: push)
        configuration.lookup = lookup
        configuration.carriers.appliesEvents = applyCarrierEvents
        // Benchmarks drive thousands of requests per second from loopback, and seed many devices per order.
        configuration.limits = .unlimited
        // The benchmark drives the demo merchant, on PostgreSQL too.
        configuration.developmentMode = true
        let ports = AsyncStream<Int>.makeStream()
        let server = try await OrderTrackApplication.build(configuration: configuration, logger: logger, routes: [Dashboard()]) {
            ports.continuation.yield($0)
        }
        guard let credentials = server.developmentCredentials else { throw usageError("the benchmark needs a fresh data directory") }
        // Stopped the way `serve` stops, gracefully: cancelling the server dropped connections and streams it had
        // accepted but not yet served, whose NIO writers trap when deinitialized unfinished.
        let services = ServiceGroup(configuration: .init(services: [server.application], gracefulShutdownSignals: [], logger: logger))
        let value: Value
        do {
            value = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await services.run() }
                var iterator = ports.stream.makeAsyncIterator()
                guard let port = await iterator.next() else { throw usageError("the benchmark server did not start") }
                let result: Result<Value, any Error>
                do {
                    result = .success(try await body("http://127.0.0.1:\(port)", server.store, credentials))
                } catch {
                    result = .failure(error)
                }
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return try result.get()
            }
        } catch {
            // Closed on failure too: a store left open at exit trips SQLite's assertion and hides the error.
            try? await server.store.shutdown()
            try? await dropFreshSchema(of: databaseURL)
            throw error
        }
        try await server.store.shutdown()
        try await dropFreshSchema(of: databaseURL)
        return value
    }

    /// Runs `body` with an HTTP client that keeps up to `connections` connections to the server, then shuts it down.
    static func withHTTPClient<Value>(connections: Int, _ body: (HTTPClient) async throws -> Value) async throws -> Value {
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)))
        do {
            let value = try await body(http)
            try await http.shutdown()
            return value
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    /// One measurement: the requests answered, over how long, and the CPU time this process used meanwhile.
    struct Round {
        var requests: Int
        var seconds: Double
        var cpuSeconds: Double

        var rate: Double { Double(requests) / seconds }

        /// Measures `body`, which answers the number of requests it made.
        static func measure(_ body: () async throws -> Int) async rethrows -> Round {
            let (start, cpu) = (ContinuousClock.now, processCPUSeconds())
            let requests = try await body()
            return Round(requests: requests, seconds: (ContinuousClock.now - start).inSeconds, cpuSeconds: processCPUSeconds() - cpu)
        }
    }

    /// CPU time this process has used, user and system, all its threads. Per request it is steadier than a rate: the
    /// machine's pace moves by tens of percent within a minute, a request's cost does not.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Waits until this process has used under a twentieth of a core for 200 ms: the background work of what came before
    /// (package builds, pushes) done, so that what follows is measured on a server at rest.
    static func waitForRest(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let cpu = processCPUSeconds()
            try await Task.sleep(for: .milliseconds(200))
            if processCPUSeconds() - cpu < 0.01 { return }
        }
        throw usageError("the benchmark's server did not come to rest within \(timeout)")
    }

    /// A request's rate against its baseline's, the two measured in alternating rounds.
    struct Comparison {
        /// Requests per second over all the rounds of each.
        var baseline: Double
        var subject: Double
        /// This process's CPU seconds per request over all the rounds of each, client included.
        var baselineCPU: Double
        var subjectCPU: Double
        /// Each round's subject rate over the baseline rate measured next to it.
        var roundRatios: [Double]

        var ratio: Double { subject / baseline }
        /// "0.74 to 0.88": the lowest and the highest round's ratio.
        var roundRange: String { String(format: "%.2f to %.2f", roundRatios.min() ?? 0, roundRatios.max() ?? 0) }
        /// "0.81 (rounds 0.74 to 0.88)"
        var description: String { String(format: "%.2f (rounds ", ratio) + roundRange + ")" }
        /// What a subject request costs in CPU, in baseline requests.
        var cpuRatio: Double { subjectCPU / baselineCPU }
        /// "212 µs against 171 µs: 1.24x"
        var cpuDescription: String { String(format: "%.0f µs against %.0f µs: %.2fx", subjectCPU * 1e6, baselineCPU * 1e6, cpuRatio) }
    }

    /// `subject` against `baseline`, `seconds` of each, in `rounds` alternating pairs (ABBA, so a drift of the machine's
    /// pace over the run weighs on both alike): the machine's pace moves by tens of percent within a minute, and two
    /// back-to-back measurements of several seconds each carried that into their ratio (0.78 to 1.03 in three runs).
    static func compare(
        http: HTTPClient, connections: Int, baseline: (url: String, authorization: String?), subject: (url: String, authorization: String?),
        seconds: Double, rounds: Int = 10
    ) async throws -> Comparison {
        try await compare(seconds: seconds, rounds: rounds) { each in
            try await load(http: http, connections: connections, url: baseline.url, authorization: baseline.authorization, seconds: each)
        } subject: { each in
            try await load(http: http, connections: connections, url: subject.url, authorization: subject.authorization, seconds: each)
        }
    }

    /// The same for any two measurements, each given the seconds of one round.
    static func compare(
        seconds: Double, rounds: Int = 10, baseline: (Double) async throws -> Round, subject: (Double) async throws -> Round
    ) async throws -> Comparison {
        let each = seconds / Double(rounds)
        var totals = (baseline: [Round](), subject: [Round]())
        var roundRatios: [Double] = []
        for round in 0..<rounds {
            var measured = (baseline: Round(requests: 0, seconds: 1, cpuSeconds: 0), subject: Round(requests: 0, seconds: 1, cpuSeconds: 0))
            for measuresSubject in round.isMultiple(of: 2) ? [false, true] : [true, false] {
                if measuresSubject { measured.subject = try await subject(each) } else { measured.baseline = try await baseline(each) }
            }
            totals.baseline.append(measured.baseline)
            totals.subject.append(measured.subject)
            roundRatios.append(measured.subject.rate / measured.baseline.rate)
        }
        func rate(_ rounds: [Round]) -> Double { Double(rounds.map(\.requests).reduce(0, +)) / rounds.map(\.seconds).reduce(0, +) }
        func cpu(_ rounds: [Round]) -> Double { rounds.map(\.cpuSeconds).reduce(0, +) / Double(max(1, rounds.map(\.requests).reduce(0, +))) }
        return Comparison(
            baseline: rate(totals.baseline), subject: rate(totals.subject), baselineCPU: cpu(totals.baseline), subjectCPU: cpu(totals.subject),
            roundRatios: roundRatios)
    }

    /// Requests answered over `seconds` with `connections` workers, each waiting for its previous response.
    static func load(http: HTTPClient, connections: Int, url: String, authorization: String?, seconds: Double) async throws -> Round {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        return try await Round.measure {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        var count = 0
                        var request = HTTPClientRequest(url: url)
                        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
                        while ContinuousClock.now < deadline {
                            let response = try await http.execute(request, timeout: .seconds(30))
                            _ = try await response.body.collect(upTo: 16 << 20)
                            guard response.status == .ok else { throw usageError("\(url) answered \(response.status)") }
                            count += 1
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
        }
    }
}

extension Duration {
    /// The duration in seconds, for rates.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

}
