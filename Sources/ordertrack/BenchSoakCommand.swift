import ArgumentParser
import AsyncHTTPClient
import CarrierTracking
import Foundation
import MockAPNs
import NIOCore
import NIOHTTP1
import OrderLookupSigning
import OrderModel
import OrderPersistence
import OrderTrackServer
import Synchronization

/// A long run of the whole loop under a realistic mix: merchants creating and updating orders through the API, and
/// simulated Wallets that follow Apple's protocol (fetch the package, register, and on each push list their changed
/// orders since their last tag and fetch each with `If-Modified-Since`), some unregistering, some deleted (410 from
/// the mock APNs), some offline for a while. The server runs as a child process, so its memory, descriptors and log
/// are its own. At the end the invariants are checked and the update-to-Wallet latency (from a `PATCH` answer to the
/// device holding the new package) is printed.
struct BenchSoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract:
            "Run the whole loop under a realistic mix for a while and check every invariant; the last line gives the update-to-Wallet latency (build with -c release)."
    )

    @Option(help: "Minutes the mix runs (after the setup)") var minutes = 30.0
    @Option(help: "Seconds the mix runs instead of --minutes (for a short run)") var seconds: Double?
    @Option(help: "Merchant updates (PATCHes) per second; creates, re-notifies and wallet links come on top") var rate = 500.0
    @Option(help: "Simulated devices") var devices = 50_000
    @Option(help: "Orders created before the mix starts") var orders = 25_000
    @Option(help: "Devices each order is registered on") var devicesPerOrder = 2
    @Option(help: "Concurrent requests of the merchants and of the devices, each") var connections = 64
    @Option(
        help:
            "Run on this PostgreSQL database (postgres://…) instead of SQLite, in a new schema bench_<random>, dropped at the end unless an invariant broke"
    )
    var postgres: String?
    @Option(help: "Server instances sharing the database (more than one needs --postgres)") var instances = 1
    @Flag(
        help:
            "Faults on a timer until 30 s before the end: kill -9 and restart, APNs answering 503, 429 and slowly, APNs dropping connections, clients dropping mid request"
    )
    var faults = false
    @Option(help: "Seconds between two faults") var faultInterval = 20.0
    @Option(
        help:
            "With --faults on PostgreSQL: a shell command that restarts PostgreSQL, run as one of the faults (scripts/postgres-server restart DIR)"
    )
    var postgresRestart: String?
    @Option(help: "Where the servers' data directories go (a new directory inside it; by default the system's temporary directory)")
    var dataDirectory: String?
    @Flag(
        help:
            "With --faults on SQLite: fill the data directory's file system for 5 s as one of the faults (give --data-directory on a small file system of its own, such as a tmpfs)"
    )
    var fillDisk = false
    @Option(help: "Append each server's log to instance-N.log in this directory, kept after the run (restarts included)")
    var keepLogs: String?

    var duration: Double { seconds ?? minutes * 60 }

    func validate() throws {
        guard duration > 0, rate > 0, devices > 0, orders > 0, devicesPerOrder > 0, connections > 0, faultInterval > 0 else {
            throw ValidationError("every count, rate and duration must be positive")
        }
        guard devicesPerOrder <= devices else { throw ValidationError("--devices-per-order must be at most --devices") }
        guard instances >= 1, instances == 1 || postgres != nil else { throw ValidationError("--instances above 1 needs --postgres") }
        guard postgresRestart == nil || (postgres != nil && faults) else { throw ValidationError("--postgres-restart needs --postgres and --faults") }
        guard !fillDisk || (postgres == nil && faults) else { throw ValidationError("--fill-disk needs --faults on SQLite (no --postgres)") }
        if fillDisk {
            // Filling a machine's main disk would starve everything else on it: only a file system of its own.
            guard let dataDirectory, let free = DiskFiller.availableBytes(at: dataDirectory) else {
                throw ValidationError("--fill-disk needs --data-directory on a file system of its own (a tmpfs of a few hundred MB)")
            }
            guard free <= DiskFiller.largestFilled else {
                throw ValidationError(
                    "--fill-disk: \(dataDirectory) has \(free >> 20) MB free; give a file system of its own of at most \(DiskFiller.largestFilled >> 30) GB"
                )
            }
        }
    }

    func run() async throws {
        let world = SoakWorld()
        let syncs = AsyncStream<Int>.makeStream()
        let mock = try await LocalMockAPNs.start { push in
            if let device = world.pushArrived(token: push.deviceToken, status: push.status, apnsID: push.apnsID, now: .now) {
                syncs.continuation.yield(device)
            }
        }
        let directory = (dataDirectory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("ordertrack-soak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 2 * connections)))
        let databaseURL = try postgres.map(BenchmarkServer.freshPostgresSchema)
        let masterKey = databaseURL.map { _ in Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }
        var servers: [SoakServer] = []
        defer { for server in servers { server.stop() } }
        var report: SoakReport
        do {
            // The first instance makes the schema and the demo merchant; the others join it.
            for index in 0..<instances {
                let server = try SoakServer(
                    dataDirectory: directory.appendingPathComponent("instance-\(index)"), databaseURL: databaseURL, masterKey: masterKey,
                    apnsEndpoint: mock.endpoint, apnsRootPEM: mock.trustRootPEM,
                    logFile: keepLogs.map { URL(fileURLWithPath: $0).appendingPathComponent("instance-\(index).log") })
                servers.append(server)
                try await Soak.waitUntilHealthy(server, http: http)
            }
            let soak = try await Soak.start(command: self, servers: servers, mock: mock.server, http: http, world: world)
            report = try await withThrowingDiscardingTaskGroup { group in
                for _ in 0..<connections {
                    group.addTask {
                        for await device in syncs.stream { await soak.syncUntilSettled(device) }
                    }
                }
                let report = try await soak.run()
                syncs.continuation.finish()
                return report
            }
        } catch {
            syncs.continuation.finish()
            try? await http.shutdown()
            try? await mock.server.shutdown()
            throw error
        }
        try await http.shutdown()
        // A graceful shutdown is a promise too: an instance still running 30 s after SIGTERM breaks it.
        let stuck = servers.indices.filter { !servers[$0].stop() }
        if !stuck.isEmpty {
            report.broken.append("graceful shutdown: instance \(stuck.map(String.init).joined(separator: ", ")) still ran 30 s after SIGTERM")
        }
        try await mock.server.shutdown()
        print(report.text)
        if !report.broken.isEmpty {
            if let schema = databaseURL.flatMap({ try? PostgresStoreConfiguration(url: $0).schema }) {
                print("kept the soak's schema \(schema) for a look")
            }
            throw ExitCode(1)
        }
        try await BenchmarkServer.dropFreshSchema(of: databaseURL)
    }
}

/// What a soak measured and which invariants broke; the last line gives the latency and the invariants' verdict.
struct SoakReport {
    /// Every line but the last.
    var lines: [String]
    /// The update-to-Wallet figures that begin the last line.
    var latency: String
    var broken: [String]

    var text: String {
        (lines + [latency + "; invariants: " + (broken.isEmpty ? "all held" : "BROKEN: " + broken.joined(separator: "; "))])
            .joined(separator: "\n")
    }
}

/// One soak run against a started server.
final class Soak: Sendable {
    /// The servers' resources once a second: seconds into the run, resident bytes, descriptors besides client
    /// connections, and those connections (all instances summed).
    typealias ResourceSample = (at: Double, rss: Int, descriptors: Int, clientConnections: Int)

    let command: BenchSoakCommand
    /// The instances, sharing the database; requests go to each in turn.
    let servers: [SoakServer]
    let mock: MockAPNsServer
    let http: HTTPClient
    let world: SoakWorld
    let credentials: DevelopmentCredentials
    /// The generic carrier connection the scans are posted to, and its secret.
    let carrier: (url: String, secret: String)
    let counters = Mutex(Counters())
    private let lookupTokens = Shared<(token: String, expires: Date)?>(nil)
    private let turn = Shared(0)

    struct Counters {
        var updates = 0
        var creates = 0
        var idempotentRetries = 0
        /// Merchant requests answered `503 database_busy` and sent again after their `Retry-After`.
        var busyRetries = 0
        var renotifies = 0
        var walletLinks = 0
        var scans = 0
        var unregistrations = 0
        var lookups = 0
        var failures: [String] = []
        var failureCount = 0
        /// Requests that failed during a fault or its grace: their cause was injected.
        var injectedFailures = 0
        /// Registrations still behind what was acknowledged at the end of the last fault, 30 s after it.
        var behindAfterLastFault: Int?
        /// Each fault: its name, when it began and ended.
        var faults: [(name: String, start: ContinuousClock.Instant, end: ContinuousClock.Instant)] = []
    }

    /// How long after a fault its effects (failed requests, error lines) count as injected.
    static let faultGrace = Duration.seconds(15)

    /// A push job's lease (the servers run with the default), after which a job whose answer a fault lost is sent again.
    static let pushLease = Duration.seconds(PushConfiguration().leaseDuration)

    /// Whether `instant` falls in a fault or its grace (and `extendedBy` after it).
    func duringFault(_ instant: ContinuousClock.Instant, extendedBy extra: Duration = .zero) -> Bool {
        counters.withLock { $0.faults.contains { instant >= $0.start && instant <= $0.end + Self.faultGrace + extra } }
    }

    static func waitUntilHealthy(_ server: SoakServer, http: HTTPClient) async throws {
        let ready = ContinuousClock.now + .seconds(120)
        while (try? await status(http, "\(server.base)/healthz")) != .ok {
            guard ContinuousClock.now < ready else { throw usageError("the server did not start within 120 s") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static func start(command: BenchSoakCommand, servers: [SoakServer], mock: MockAPNsServer, http: HTTPClient, world: SoakWorld) async throws
        -> Soak
    {
        // Written at the first start, before the server listens; read again should the file be caught mid-write.
        var attempts = 0
        var read = try? servers[0].credentials()
        while read == nil, attempts < 50 {
            attempts += 1
            try await Task.sleep(for: .milliseconds(200))
            read = try? servers[0].credentials()
        }
        guard let credentials = read else { throw usageError("the server wrote no dev-credentials.json") }
        let secret = Secrets.randomToken(bytes: 32)
        var request = HTTPClientRequest(url: servers[0].base + "/api/v1/carrier-connections")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(credentials.apiKey)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: (["provider": "generic", "secret": .string(secret)] as JSONValue).serialized()))
        let response = try await http.execute(request, timeout: .seconds(30))
        let answer = try JSONValue.parse(Array(try await response.body.collect(upTo: 1 << 20).readableBytesView))
        guard response.status == .created, let url = answer["webhookURL"]?.stringValue else {
            throw usageError("the carrier connection was not made: \(response.status)")
        }
        return Soak(command: command, servers: servers, mock: mock, http: http, world: world, credentials: credentials, carrier: (url, secret))
    }

    private init(
        command: BenchSoakCommand, servers: [SoakServer], mock: MockAPNsServer, http: HTTPClient, world: SoakWorld,
        credentials: DevelopmentCredentials, carrier: (url: String, secret: String)
    ) {
        self.command = command
        self.servers = servers
        self.mock = mock
        self.http = http
        self.world = world
        self.credentials = credentials
        self.carrier = carrier
    }

    /// The next instance's base URL: requests go to each in turn.
    private var base: String {
        servers[
            turn.value.withLock { turn in
                defer { turn &+= 1 }
                return turn % servers.count
            }
        ].base
    }

    private static func status(_ http: HTTPClient, _ url: String) async throws -> HTTPResponseStatus {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status
    }

    // MARK: The run

    func run() async throws -> SoakReport {
        let setupStarted = ContinuousClock.now
        // A deleted device: its token makes the mock APNs answer 410 (its prefix convention).
        for index in 0..<command.devices {
            let deleted = index % 100 == 99
            let token = deleted ? "fa170410" + String(format: "%056x", index) : "50a4" + String(format: "%060x", index)
            _ = world.addDevice(library: "soak-device-\(index)", token: token)
        }
        try await concurrently(command.orders) { index in try await self.createOrder(number: index, retry: false) }
        let setup = (ContinuousClock.now - setupStarted).inSeconds
        print("setup: \(command.orders) orders created, each registered on \(command.devicesPerOrder) devices, in \(String(format: "%.1f", setup)) s")

        // Offline: one device in fifty, from the start of the run until a moment in its middle.
        let start = ContinuousClock.now
        let runEnd = start + .milliseconds(Int(command.duration * 1000))
        world.state.withLock { state in
            for index in state.devices.indices where index % 50 == 7 {
                state.devices[index].offlineUntil = start + .milliseconds(Int(command.duration * 1000 * (0.33 + Double(index % 13) / 40)))
            }
        }
        var samples: [ResourceSample] = []
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await self.mix(until: runEnd) }
            if command.faults { group.addTask { try await self.injectFaults(until: runEnd - .seconds(30)) } }
            while ContinuousClock.now < runEnd {
                try await Task.sleep(for: .seconds(1))
                let rss = servers.compactMap { $0.residentBytes() }
                let descriptors = servers.compactMap { $0.openDescriptors() }
                if rss.count == servers.count, descriptors.count == servers.count {
                    let connections = descriptors.map(\.clientConnections).reduce(0, +)
                    let others = descriptors.map(\.all).reduce(0, +) - connections
                    samples.append(((ContinuousClock.now - start).inSeconds, rss.reduce(0, +), others, connections))
                }
                for device in world.devicesBackOnline(now: .now) { group.addTask { await self.syncUntilSettled(device) } }
            }
        }
        let achieved = Double(counters.withLock { $0.updates }) / (ContinuousClock.now - start).inSeconds

        // Settling: the last pushes and fetches, within 60 s.
        let settleStarted = ContinuousClock.now
        var depth = -1
        var lagging = -1
        while ContinuousClock.now < settleStarted + .seconds(60) {
            depth = (try? await queueDepth()) ?? -1
            lagging = world.lagging().count
            if depth == 0 && lagging == 0 { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        return try await judge(
            runStart: start, achievedRate: achieved, settled: (ContinuousClock.now - settleStarted).inSeconds, queueDepth: depth, samples: samples,
            setupSeconds: setup
        )
    }

    /// The merchants' side: `rate` updates a second, with creates (some retried with their idempotency key), re-notifies,
    /// wallet links and unregistrations mixed in, at most `connections` requests at once.
    private func mix(until end: ContinuousClock.Instant) async throws {
        let start = ContinuousClock.now
        // 93 of every 100 slots are updates: the others are paced on top, so the updates keep the asked rate.
        let interval = 0.93 / command.rate
        let inFlight = Shared(0)
        try await withThrowingDiscardingTaskGroup { group in
            var step = 0
            var created = command.orders
            while true {
                let due = start + .milliseconds(Int(Double(step) * interval * 1000))
                guard due < end else { break }
                if due > .now { try await Task.sleep(until: due) }
                let admitted = inFlight.value.withLock { count in
                    guard count < command.connections else { return false }
                    count += 1
                    return true
                }
                guard admitted else {
                    // Saturated: this slot is skipped, and the achieved rate says so.
                    step += 1
                    continue
                }
                let kind = step % 100
                let number = step
                let orderNumber = created
                if kind == 17 { created += 1 }
                group.addTask {
                    defer { inFlight.value.withLock { $0 -= 1 } }
                    do {
                        switch kind {
                        case 17: try await self.createOrder(number: orderNumber, retry: number % 500 == 17)
                        case 42: try await self.renotify(number)
                        case 63: try await self.walletLink(number)
                        case 29, 71: try await self.scan(number)
                        case 88: try await self.unregisterOne(number)
                        case 53: try await self.lookUp(number)
                        default: try await self.update(number)
                        }
                    } catch {
                        self.fail("\(error)")
                    }
                }
                step += 1
            }
        }
    }

    // MARK: Faults

    /// One fault every ``BenchSoakCommand/faultInterval`` seconds, in turn, until `end`.
    private func injectFaults(until end: ContinuousClock.Instant) async throws {
        // The optional faults early: a short run reaches them too.
        let kinds =
            ["kill -9 and restart"] + (command.postgresRestart == nil ? [] : ["PostgreSQL restart"]) + (command.fillDisk ? ["disk full"] : [])
            + ["APNs 503 burst", "APNs 429 burst", "APNs slow", "APNs drops connections", "clients drop mid request"]
        var next = 0
        while true {
            try await Task.sleep(for: .milliseconds(Int(command.faultInterval * 1000)))
            guard ContinuousClock.now < end else { break }
            let kind = kinds[next % kinds.count]
            next += 1
            let start = ContinuousClock.now
            counters.withLock { $0.faults.append((kind, start, start + .seconds(3_600))) }
            switch kind {
            case "kill -9 and restart":
                // Each instance in turn.
                let server = servers[(next / kinds.count) % servers.count]
                try server.killAndRestart()
                try await Self.waitUntilHealthy(server, http: http)
            case "APNs 503 burst": try await burst(.serviceUnavailable)
            case "APNs 429 burst": try await burst(.tooManyRequests)
            case "APNs slow": try await burst(.slowResponse)
            case "APNs drops connections": await mock.dropConnections()
            case "PostgreSQL restart":
                try await Self.shell(command.postgresRestart ?? "")
                for server in servers { try await Self.waitUntilHealthy(server, http: http) }
            case "disk full":
                let filler = try DiskFiller.fill(servers[0].dataDirectory)
                try await Task.sleep(for: .seconds(5))
                filler.release()
            default: for _ in 0..<20 { dropMidRequest() }
            }
            let ended = ContinuousClock.now
            counters.withLock { $0.faults[$0.faults.count - 1].end = ended }
        }
        // Every device caught up within 30 s of the last fault: each holds, by then, what was acknowledged at its end.
        guard let last = counters.withLock({ $0.faults.last?.end }) else { return }
        let acknowledged = world.state.withLock { state in
            Dictionary(uniqueKeysWithValues: state.orders.indices.map { ($0, state.orders[$0].acknowledged) })
        }
        try await Task.sleep(until: last + .seconds(30))
        let behind = world.lagging(truth: acknowledged).count
        counters.withLock { $0.behindAfterLastFault = behind }
    }

    /// Runs an operator's command (`sh -c`) and waits for it. Not `Process`: Foundation learns of a child's exit when a
    /// socket the child inherited closes, and a command that starts a daemon (`pg_ctl restart`) hands that socket on to
    /// it, so the exit is never seen. Here the child inherits no descriptor above stderr, and `waitpid` runs on a
    /// thread of its own.
    static func shell(_ command: String) async throws {
        // Nothing of ours above stderr reaches the child (nor its daemons): this process never execs, so close-on-exec
        // costs it nothing.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let descriptor = Int32(name), descriptor > 2 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (argument: String) in strdup(argument) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, arguments, environ)
        let child = pid
        guard spawned == 0 else { throw usageError("`\(command)` did not start: error \(spawned)") }
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        guard status == 0 else { throw usageError("`\(command)` exited with status \(status)") }
    }

    private func burst(_ fault: MockAPNsFault) async throws {
        mock.setFaultForEveryToken(fault)
        try await Task.sleep(for: .seconds(5))
        mock.setFaultForEveryToken(nil)
    }

    /// A client that sends a PATCH's head and half its body, then closes the connection.
    private func dropMidRequest() {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(servers[0].port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return }
        let id = world.state.withLock { $0.orders.first?.id ?? "none" }
        let head = """
            PATCH /api/v1/orders/\(credentials.orderTypeIdentifier)/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\n\
            Authorization: Bearer \(credentials.apiKey)\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"fulfillments": [
            """
        _ = head.utf8CString.withUnsafeBufferPointer { send(socket, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    // MARK: Merchant calls

    private func createOrder(number: Int, retry: Bool) async throws {
        let content: JSONValue = [
            "orderNumber": .string("SOAK-\(number)"),
            "merchant": ["displayName": "Soak Shop", "merchantIdentifier": "merchant.soak", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders",
            "payment": ["total": ["amount": "42", "currency": "USD"], "status": "paid"],
            "lineItems": [["title": "Coffee beans", "quantity": 2, "price": ["amount": "21.00", "currency": "USD"]]],
            "fulfillments": [
                [
                    "fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "shipped", "carrier": "UPS",
                    "trackingNumber": .string(Self.trackingNumber(number)),
                ]
            ],
        ]
        let key = "soak-create-\(number)"
        let (answer, _) = try await merchant(.POST, "/api/v1/orders", content, idempotencyKey: key, expect: [.created])
        guard let id = answer["orderDetails"]?["orderIdentifier"]?.stringValue,
            let token = answer["orderDetails"]?["authenticationToken"]?.stringValue,
            let second = Self.second(answer["order"]?["updatedAt"])
        else { throw usageError("the create answer lacks orderDetails or updatedAt") }
        if retry {
            // The checkout retried: the same key answers the same order, and makes no second one.
            let (again, _) = try await merchant(.POST, "/api/v1/orders", content, idempotencyKey: key, expect: [.created, .ok])
            guard again["orderDetails"]?["orderIdentifier"]?.stringValue == id else {
                throw usageError("an idempotent retry of SOAK-\(number) answered another order")
            }
            counters.withLock { $0.idempotentRetries += 1 }
        }
        let order = world.addOrder(id: id, number: number, token: token, second: second)
        counters.withLock { $0.creates += 1 }
        // Its devices: each fetches the package as Wallet does when the order is added, registers, and checks again.
        let count = world.state.withLock { $0.devices.count }
        for slot in 0..<command.devicesPerOrder {
            let device = (number * command.devicesPerOrder + slot * 7_919) % count
            try await addToWallet(device: device, order: order)
        }
    }

    private func update(_ number: Int) async throws {
        let (order, id) = randomOrder(number)
        let patch: JSONValue = ["fulfillments": [["fulfillmentIdentifier": "ship-1", "statusDescription": .string("Update \(number)")]]]
        let answer: JSONValue
        do {
            (answer, _) = try await merchant(.PATCH, "/api/v1/orders/\(credentials.orderTypeIdentifier)/\(id)", patch, expect: [.ok])
        } catch {
            // Applied or not: the server may now hold a version no answer acknowledged.
            world.state.withLock { $0.orders[order].mayBeNewer = true }
            throw error
        }
        guard let second = Self.second(answer["order"]?["updatedAt"]) else { throw usageError("the PATCH answer lacks updatedAt") }
        world.acknowledge(order: order, second: second, at: .now)
        counters.withLock { $0.updates += 1 }
    }

    private func renotify(_ number: Int) async throws {
        let (_, id) = randomOrder(number)
        _ = try await merchant(.POST, "/api/v1/orders/\(credentials.orderTypeIdentifier)/\(id)/notify", nil, expect: [.accepted, .ok])
        counters.withLock { $0.renotifies += 1 }
    }

    private func walletLink(_ number: Int) async throws {
        let (_, id) = randomOrder(number)
        _ = try await merchant(.POST, "/api/v1/orders/\(credentials.orderTypeIdentifier)/\(id)/wallet-link", nil, expect: [.created])
        counters.withLock { $0.walletLinks += 1 }
    }

    /// A support tool's lookup of a random order by its number (App Store Server API's Look Up Order ID), with the one
    /// token it keeps for many lookups: its one line item comes back as one signed transaction.
    private func lookUp(_ number: Int) async throws {
        let (order, _) = randomOrder(number)
        let orderNumber = world.state.withLock { $0.orders[order].number }
        var request = HTTPClientRequest(url: "\(base)/inApps/v1/lookup/SOAK-\(orderNumber)")
        request.headers.add(name: "Authorization", value: "Bearer \(try await lookupToken())")
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        let answer = (try? JSONValue.parse(bytes)) ?? .null
        guard response.status == .ok, answer["status"] == 0, answer["signedTransactions"]?.arrayValue?.count == 1 else {
            throw usageError("a lookup of SOAK-\(orderNumber) answered \(response.status): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
        counters.withLock { $0.lookups += 1 }
    }

    /// The support tool's token: signed once and used until ten minutes before its `exp` (at most an hour away).
    private func lookupToken() async throws -> String {
        let now = Date()
        if let (token, expires) = lookupTokens.value.withLock({ $0 }), expires > now.addingTimeInterval(600) { return token }
        guard let key = credentials.lookup else { throw usageError("the development bootstrap made no lookup key") }
        let expires = now.addingTimeInterval(3_000)
        let token = try await LookupAPIToken.sign(
            LookupAPIClaims(iss: key.issuerId, bid: key.bundleId, exp: expires, iat: now), keyId: key.keyId,
            privateKeyPEM: try String(contentsOfFile: key.privateKey, encoding: .utf8))
        lookupTokens.value.withLock { $0 = (token, expires) }
        return token
    }

    /// A carrier's scan of a random order's parcel, in the generic format, signed: the server applies it in the
    /// background, so its version is checked against the server's at the end rather than timed.
    private func scan(_ number: Int) async throws {
        let (order, id) = randomOrder(number)
        let orderNumber = world.state.withLock { $0.orders[order].number }
        let now = Date()
        let event: JSONValue = [
            "id": .string("soak-scan-\(number)"), "trackingNumber": .string(Self.trackingNumber(orderNumber)), "carrier": "ups",
            "status": "onTheWay", "occurredAt": .string(DateTimeFormat.formatRFC3339(now)), "statusDescription": .string("Scan \(number)"),
        ]
        let body = event.serialized()
        world.state.withLock { $0.orders[order].mayBeNewer = true }
        var request = HTTPClientRequest(url: carrier.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "OrderTrack-Signature", value: GenericEventSigner.signatureHeader(body: body, secret: carrier.secret, at: now))
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await http.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .accepted || response.status == .ok else { throw usageError("a scan of \(id) answered \(response.status)") }
        counters.withLock { $0.scans += 1 }
    }

    /// SplitMix64's finalizer: slot numbers spread evenly over the orders and devices, whichever kind of slot they are.
    static func scramble(_ number: Int) -> UInt64 {
        var z = UInt64(truncatingIfNeeded: number) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func trackingNumber(_ orderNumber: Int) -> String { "1ZSOAK" + String(format: "%010d", orderNumber) }

    private func randomOrder(_ number: Int) -> (Int, String) {
        world.state.withLock { state in
            let index = Int(Self.scramble(number) % UInt64(state.orders.count))
            return (index, state.orders[index].id)
        }
    }

    private func merchant(
        _ method: HTTPMethod, _ path: String, _ body: JSONValue?, idempotencyKey: String? = nil, expect: [HTTPResponseStatus]
    ) async throws -> (JSONValue, HTTPResponseStatus) {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(credentials.apiKey)")
        if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body.serialized()))
        }
        var attempt = 0
        while true {
            let response = try await http.execute(request, timeout: .seconds(30))
            let bytes = Array(try await response.body.collect(upTo: 16 << 20).readableBytesView)
            // An overloaded server sheds a request it never applied (503 `database_busy`, `Retry-After`); a merchant's
            // client tries it again after the wait, as the API documents. Counted, and given up after a few tries.
            if response.status == .serviceUnavailable, attempt < Self.maximumBusyRetries,
                let wait = response.headers.first(name: "Retry-After").flatMap(Int.init),
                (try? JSONValue.parse(bytes))?["error"]?["code"]?.stringValue == "database_busy"
            {
                attempt += 1
                counters.withLock { $0.busyRetries += 1 }
                try await Task.sleep(for: .seconds(min(wait, 5)))
                continue
            }
            guard expect.contains(response.status) else {
                throw usageError("\(method) \(path) answered \(response.status): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
            }
            return (bytes.isEmpty ? .null : (try JSONValue.parse(bytes)), response.status)
        }
    }

    /// Tries of a request the server shed as busy, after the first.
    static let maximumBusyRetries = 5

    // MARK: Wallet calls

    /// Adds the order to the device's Wallet: the package, the registration, and the package again should it have
    /// changed in between.
    private func addToWallet(device: Int, order: Int) async throws {
        let (library, pushToken, id, token) = world.state.withLock {
            ($0.devices[device].library, $0.devices[device].token, $0.orders[order].id, $0.orders[order].token)
        }
        guard let second = try await fetch(id: id, token: token, since: nil) else { throw usageError("the first fetch of \(id) answered 304") }
        var request = HTTPClientRequest(url: "\(base)/wallet/v1/devices/\(library)/registrations/\(credentials.orderTypeIdentifier)/\(id)")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "AppleOrder \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: (["pushToken": .string(pushToken)] as JSONValue).serialized()))
        let response = try await http.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .created || response.status == .ok else { throw usageError("registering \(library) answered \(response.status)") }
        world.register(device: device, order: order, second: second)
        if let newer = try await fetch(id: id, token: token, since: second) { world.hold(device: device, order: order, second: newer, at: .now) }
    }

    private func unregisterOne(_ number: Int) async throws {
        let chosen: (device: Int, order: Int, library: String, id: String, token: String)? = world.state.withLock { state in
            let device = Int(Self.scramble(number &+ 1) % UInt64(state.devices.count))
            guard !state.devices[device].deleted, let order = state.devices[device].held.keys.min() else { return nil }
            return (device, order, state.devices[device].library, state.orders[order].id, state.orders[order].token)
        }
        guard let chosen else { return }
        // Forgotten first: a push racing the unregistration must not count against the device.
        world.unregister(device: chosen.device, order: chosen.order)
        var request = HTTPClientRequest(
            url: "\(base)/wallet/v1/devices/\(chosen.library)/registrations/\(credentials.orderTypeIdentifier)/\(chosen.id)")
        request.method = .DELETE
        request.headers.add(name: "Authorization", value: "AppleOrder \(chosen.token)")
        let response = try await http.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw usageError("unregistering answered \(response.status)") }
        counters.withLock { $0.unregistrations += 1 }
    }

    /// The package's `Last-Modified` second, or `nil` for 304.
    private func fetch(id: String, token: String, since: Int64?) async throws -> Int64? {
        var request = HTTPClientRequest(url: "\(base)/wallet/v1/orders/\(credentials.orderTypeIdentifier)/\(id)")
        request.headers.add(name: "Authorization", value: "AppleOrder \(token)")
        if let since { request.headers.add(name: "If-Modified-Since", value: HTTPDate.format(Date(timeIntervalSince1970: Double(since)))) }
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        if response.status == .notModified { return nil }
        guard response.status == .ok, body.readableBytes > 0, let modified = response.headers.first(name: "Last-Modified").flatMap(HTTPDate.parse)
        else { throw usageError("fetching \(id) answered \(response.status)") }
        return Int64(modified.timeIntervalSince1970)
    }

    /// What Wallet does on a push: the orders changed since its tag, each fetched with `If-Modified-Since`.
    private func sync(_ device: Int) async {
        let (library, tag, deleted) = world.state.withLock { ($0.devices[device].library, $0.devices[device].tag, $0.devices[device].deleted) }
        guard !deleted else { return }
        do {
            var url = "\(base)/wallet/v1/devices/\(library)/registrations/\(credentials.orderTypeIdentifier)"
            if let tag { url += "?ordersModifiedSince=\(tag)" }
            let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 16 << 20)
            if response.status == .noContent {
                world.state.withLock { $0.pushesFindingNothing += 1 }
                return
            }
            guard response.status == .ok else { throw usageError("the registrations list answered \(response.status)") }
            let list = try JSONValue.parse(Array(body.readableBytesView))
            var foundNew = false
            // An order listed that the device does not hold (yet): its registration's answer has not arrived here, or
            // its unregistration is on the way. The tag then stays, so the next list names the order again.
            var skipped = false
            for id in list["orderIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                let known = world.state.withLock { state in
                    state.orderIndex[id].map { ($0, state.orders[$0].token, state.devices[device].held[$0]) }
                }
                guard let (order, token, held) = known, let since = held else {
                    skipped = true
                    continue
                }
                if let second = try await fetch(id: id, token: token, since: since) {
                    foundNew = true
                    world.hold(device: device, order: order, second: second, at: .now)
                }
            }
            if !foundNew { world.state.withLock { $0.pushesFindingNothing += 1 } }
            if !skipped, let newTag = list["lastModified"]?.stringValue { world.state.withLock { $0.devices[device].tag = newTag } }
        } catch {
            fail("device \(library): \(error)")
            // Cut by a fault: the device tries again shortly, as Wallet does after a failed update.
            if duringFault(.now) {
                world.syncAgain(device: device)
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Syncs the device until no push came during its last sync.
    func syncUntilSettled(_ device: Int) async {
        var again = true
        while again {
            await sync(device)
            again = world.syncFinished(device: device)
        }
    }

    // MARK: Judging

    private func queueDepth() async throws -> Int {
        let response = try await http.execute(HTTPClientRequest(url: "\(servers[0].base)/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ordertrack_push_queue_depth") }),
            let value = line.split(separator: " ").last.flatMap({ Double($0) })
        else { throw usageError("/metrics has no ordertrack_push_queue_depth") }
        return Int(value)
    }

    private func judge(
        runStart: ContinuousClock.Instant, achievedRate: Double, settled: Double, queueDepth: Int,
        samples: [ResourceSample], setupSeconds: Double
    ) async throws -> SoakReport {
        var broken: [String] = []
        // Every acknowledged write is what the server holds (or older than it, for a parcel a scan moved since or a
        // write whose answer a fault cut).
        let expected = world.state.withLock { $0.orders.map { ($0.id, $0.acknowledged, $0.mayBeNewer) } }
        let mismatches = Shared<[String]>([])
        let truth = Shared<[Int: Int64]>([:])
        try await concurrently(expected.count) { index in
            let (id, second, mayBeNewer) = expected[index]
            let (answer, _) = try await self.merchant(.GET, "/api/v1/orders/\(self.credentials.orderTypeIdentifier)/\(id)", nil, expect: [.ok])
            let held = Self.second(answer["updatedAt"] ?? answer["order"]?["updatedAt"]) ?? -1
            truth.value.withLock { $0[index] = held }
            if mayBeNewer ? held < second : held != second {
                mismatches.value.withLock { $0.append("\(id): server \(held), acknowledged \(second)") }
            }
        }
        let lost = mismatches.value.withLock { $0 }
        if !lost.isEmpty { broken.append("acknowledged writes: \(lost.count) orders differ, first \(lost[0])") }
        // The scans' versions: the devices have until 30 s after the settling to fetch them.
        let finalSeconds = truth.value.withLock { $0 }
        var lagging = world.lagging(truth: finalSeconds)
        let caughtUp = ContinuousClock.now + .seconds(30)
        while lagging.count > 0 && ContinuousClock.now < caughtUp {
            try await Task.sleep(for: .milliseconds(250))
            lagging = world.lagging(truth: finalSeconds)
        }
        if let first = lagging.first {
            broken.append(
                "devices holding the latest version: \(lagging.count) registrations behind after \(Int(settled)) s; "
                    + (await describeLag(device: first.device, order: first.order, held: first.held, latest: first.latest)))
        }
        if queueDepth != 0 { broken.append("push queue drained: \(queueDepth) jobs left") }
        // A push sent twice is allowed only where a fault can lose its answer (a crash, a restart, a late or cut answer):
        // its job's lease then runs out and the job goes again, up to a lease after the fault.
        let duplicates = world.state.withLock { $0.duplicatePushes }
        let duplicatesOutsideFaults = duplicates.filter { !duringFault($0, extendedBy: Self.pushLease) }
        if let first = duplicatesOutsideFaults.first {
            broken.append(
                "no push sent twice outside a fault: \(duplicatesOutsideFaults.count) accepted twice, the first "
                    + "\(String(format: "%.1f", (first - runStart).inSeconds)) s into the run")
        }
        let (failureCount, failures) = counters.withLock { ($0.failureCount, $0.failures) }
        if failureCount > 0 { broken.append("requests answered as expected: \(failureCount) failed, first \(failures[0])") }
        let errorTimes = servers.flatMap { $0.errors.times }
        let firstErrors = servers.flatMap { $0.errors.first }
        let uncaused = errorTimes.filter { !duringFault($0) }.count
        let errors = errorTimes.count
        if uncaused > 0 { broken.append("no error-level log line without an injected cause: \(uncaused), first of all \(firstErrors[0])") }
        // Flat after warm-up: the last third against the middle one.
        let third = samples.count / 3
        let middle = samples.dropFirst(third).prefix(third)
        let last = samples.suffix(third)
        let rssGrowth = (last.map(\.rss).max() ?? 0) - (middle.map(\.rss).max() ?? 0)
        let fdGrowth = (last.map(\.descriptors).max() ?? 0) - (middle.map(\.descriptors).max() ?? 0)
        if third > 0, rssGrowth > max(32 << 20, (middle.map(\.rss).max() ?? 0) / 10) {
            broken.append("resident memory flat: grew \(rssGrowth >> 20) MB over the last third")
        }
        if third > 0, fdGrowth > 16 { broken.append("open descriptors flat: \(fdGrowth) more in the last third") }

        // With faults: every device caught up, and the queue drained, within 30 s of the last one.
        let faults = counters.withLock { $0.faults }
        var faultLine: String?
        if !faults.isEmpty {
            let (injected, behind) = counters.withLock { ($0.injectedFailures, $0.behindAfterLastFault) }
            if let behind, behind > 0 { broken.append("caught up within 30 s of the last fault: \(behind) registrations behind") }
            faultLine =
                "faults: \(faults.count) (\(Set(faults.map(\.name)).sorted().joined(separator: ", "))); \(injected) requests failed during them, "
                + "\(errorTimes.count - uncaused) error lines; 30 s after the last, \(behind.map(String.init) ?? "?") registrations behind"
        }
        let (timed, offline, pushes, nothing, refused) = world.state.withLock {
            ($0.latencies, $0.offlineLatencies.sorted(), $0.pushes, $0.pushesFindingNothing, $0.refusedPushes)
        }
        let latencies = timed.map(\.seconds).sorted()
        let percentile = { (fraction: Double) -> String in Self.percentile(fraction, of: latencies) }
        // Whether the tail is steady or one stretch of the run: p99 of the writes acknowledged in each sixth of it.
        let sixth = command.duration / 6
        let bySixth = (0..<6).map { part in
            let window =
                (runStart + .milliseconds(Int(Double(part) * sixth * 1000)))..<(runStart + .milliseconds(Int(Double(part + 1) * sixth * 1000)))
            return Self.percentile(0.99, of: timed.filter { window.contains($0.acknowledgedAt) }.map(\.seconds).sorted())
        }
        let c = counters.withLock { $0 }
        let memory = samples.last.map { "\($0.rss >> 20) MB" } ?? "–"
        var lines = [
            "mix: \(String(format: "%.0f", achievedRate)) updates/s achieved (asked \(String(format: "%.0f", command.rate))) for \(Int(command.duration)) s; "
                + "\(c.updates) updates, \(c.creates - command.orders) creates (\(c.idempotentRetries) retried with their key), \(c.renotifies) re-notifies, "
                + "\(c.busyRetries) requests sent again after 503 database_busy, "
                + "\(c.walletLinks) wallet links, \(c.scans) carrier scans, \(c.lookups) support lookups, \(c.unregistrations) unregistrations",
            "devices: \(command.devices) (1 in 100 deleted: 410; 1 in 50 offline for a while); pushes \(pushes) delivered, \(refused) refused, "
                + "\(nothing) finding nothing new, \(duplicates.count) sent twice (\(duplicates.count - duplicatesOutsideFaults.count) within a lease of a fault); "
                + "\(latencies.count) device catch-ups measured, and \(offline.count) of writes made while "
                + "their device was offline (max \(offline.last.map { String(format: "%.1f", $0) } ?? "–") s after the write)",
            "\(servers.count == 1 ? "server" : "\(servers.count) servers") on \(command.postgres == nil ? "SQLite" : "PostgreSQL"): resident \(memory) at the end (last third \(rssGrowth >= 0 ? "+" : "")\(rssGrowth >> 20) MB), descriptors "
                + "\(samples.last?.descriptors ?? 0) besides \(samples.last?.clientConnections ?? 0) client connections (\(fdGrowth >= 0 ? "+" : "")\(fdGrowth)), \(errors) error lines; settled in "
                + "\(String(format: "%.1f", settled)) s; setup \(String(format: "%.1f", setupSeconds)) s",
        ]
        if let faultLine { lines.append(faultLine) }
        lines.append("update-to-wallet p99 by sixth of the run, in order of the writes: \(bySixth.joined(separator: ", ")) ms")
        return SoakReport(
            lines: lines, latency: "update-to-wallet p50 \(percentile(0.5)) ms p99 \(percentile(0.99)) ms max \(percentile(1)) ms", broken: broken)
    }

    /// The `fraction` percentile of sorted seconds, in whole milliseconds; a dash for none.
    private static func percentile(_ fraction: Double, of sorted: [Double]) -> String {
        sorted.isEmpty ? "–" : String(format: "%.0f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] * 1000)
    }

    /// What the server says now of a device left behind: its registrations list since its tag, the package since the
    /// version it holds, and the order's push log for its token.
    private func describeLag(device: Int, order: Int, held: Int64, latest: Int64) async -> String {
        let (library, token, tag, lastPush, id, orderToken) = world.state.withLock {
            (
                $0.devices[device].library, $0.devices[device].token, $0.devices[device].tag, $0.devices[device].lastPush, $0.orders[order].id,
                $0.orders[order].token
            )
        }
        var parts = [
            "\(library) holds \(id) at \(held), the server at \(latest); its last push at \(lastPush.map(DateTimeFormat.formatRFC3339) ?? "never")"
        ]
        let type = credentials.orderTypeIdentifier
        var list = "\(base)/wallet/v1/devices/\(library)/registrations/\(type)"
        if let tag { list += "?ordersModifiedSince=\(tag)" }
        if let response = try? await http.execute(HTTPClientRequest(url: list), timeout: .seconds(10)),
            let body = try? await response.body.collect(upTo: 1 << 20)
        {
            parts.append("its list since tag \(tag ?? "none") answers \(response.status.code) \(String(buffer: body).prefix(200))")
        }
        if let refetched = try? await fetch(id: id, token: orderToken, since: held) {
            parts.append("a fetch since its version answers \(refetched)")
        } else {
            parts.append("a fetch since its version answers 304 or fails")
        }
        if let (pushes, _) = try? await merchant(.GET, "/api/v1/orders/\(type)/\(id)/pushes?limit=100", nil, expect: [.ok]) {
            let mine = (pushes["data"]?.arrayValue ?? []).filter { $0["tokenSuffix"]?.stringValue.map { token.hasSuffix($0) } == true }
            parts.append("the push log has \(mine.count) pushes to it, the newest \(mine.first?.serializedString() ?? "none")")
        }
        return parts.joined(separator: "; ")
    }

    // MARK: Helpers

    private func fail(_ message: String) {
        let injected = duringFault(.now)
        counters.withLock { counters in
            guard !injected else {
                counters.injectedFailures += 1
                return
            }
            counters.failureCount += 1
            if counters.failures.count < 5 { counters.failures.append(message) }
        }
    }

    /// Runs `body` for 0..<count with at most `connections` at once.
    private func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let next = Counter()
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<command.connections {
                group.addTask {
                    while let index = next.take(below: count) { try await body(index) }
                }
            }
        }
    }

    /// The whole second of an RFC 3339 `updatedAt`.
    static func second(_ value: JSONValue?) -> Int64? {
        value?.stringValue.flatMap(DateTimeFormat.parseRFC3339).map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }
}

/// A value tasks share, behind a lock.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }
}
