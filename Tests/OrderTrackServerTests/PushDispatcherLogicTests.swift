import APNs
import Foundation
import Logging
import OrderPersistence
import OrderSigning
import ServerTestSupport
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import OrderTrackServer

/// The dispatcher's decisions, with a stand-in for APNs that answers each device as the test says: no sockets, no
/// TLS, no waiting for a poll. PushDeliveryTests checks the same path end to end against the mock APNs.
@Suite struct PushDispatcherLogicTests {
    static let type = "order.com.example.dispatch"
    /// An order type whose identity cannot be loaded: its pushes never reach a client.
    static let brokenType = "order.com.example.broken"

    /// APNs' answer for each device token.
    static let answers: [String: APNsResult] = [
        "token-delivered": .delivered(apnsID: UUID()),
        // APNs' 410 says since when the token is invalid: a registration made before goes, one made later stays.
        "token-gone": .unregistered(since: Date().addingTimeInterval(3600)),
        "token-returned": .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)),
        "token-baddevice": .badDeviceToken,
        "token-busy": .retryable(status: 503, reason: .apns(.serviceUnavailable)),
        "token-badtopic": .configurationError(status: 400, reason: .apns(.badTopic)),
    ]

    /// A merchant with a working order type and a broken one, an order of each, a device per answer, and their pushes
    /// queued.
    static func seed(_ store: SQLOrderStore, in directory: URL) async throws {
        let identityDirectory = directory.appendingPathComponent("identity", isDirectory: true)
        try FileManager.default.createDirectory(at: identityDirectory, withIntermediateDirectories: true)
        _ = try DevelopmentIdentity.create(orderTypeIdentifier: Self.type, in: identityDirectory)
        let (merchant, _) = try await Administration(store: store, trust: .development).createMerchant(name: "Dispatch Shop")
        try await Administration(store: store, trust: .development).setOrderType(
            merchantID: merchant.id, orderTypeIdentifier: Self.type, identity: .directory(path: identityDirectory.path))
        try await store.upsertOrderType(
            OrderTypeRecord(
                orderTypeIdentifier: Self.brokenType, merchantID: merchant.id,
                identity: .directory(path: directory.appendingPathComponent("missing").path)))
        for (type, tokens) in [(Self.type, Array(Self.answers.keys)), (Self.brokenType, ["token-stranded"])] {
            try await store.createOrder(
                OrderRecord(
                    orderTypeIdentifier: type, orderIdentifier: "A", merchantID: merchant.id, authenticationToken: "token-\(type)-0123456789abcdef",
                    document: Array(#"{"status":"open"}"#.utf8), status: "open", createdAt: Date(), updatedAt: Date()))
            for token in tokens {
                _ = try await store.register(
                    deviceLibraryIdentifier: "device-\(token)", pushToken: token, orderTypeIdentifier: type, orderIdentifier: "A")
            }
            _ = try await store.enqueuePushes(orderTypeIdentifier: type, orderIdentifier: "A")
        }
    }

    /// A store seeded by ``seed(_:in:)`` in a directory of its own, removed after `body`.
    static func withSeededStore(_ body: (SQLOrderStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dispatcher-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(
            try await seededStore(path: directory.appendingPathComponent("orders.sqlite").path, masterKey: MasterKey.generate(), in: directory))
    }

    /// A SQLite store at `path`, seeded by ``seed(_:in:)``.
    static func seededStore(path: String, masterKey: MasterKey, in directory: URL) async throws -> SQLOrderStore {
        let store = try await SQLOrderStore.sqlite(path: path, masterKey: masterKey)
        do {
            try await seed(store, in: directory)
        } catch {
            try? await store.shutdown()
            throw error
        }
        return store
    }

    /// The dispatcher under test: its queue is `outbox`, its APNs the stand-in, its clock the system's.
    static func dispatcher(
        outbox: any PushOutbox, store: SQLOrderStore, apns: StandInAPNs, cpu: CPUWorkPool, logger: Logger, pollInterval: Duration = .seconds(1)
    ) -> PushDispatcher {
        PushDispatcher(
            store: outbox, credentials: CredentialProvider(store: store, cpu: cpu, logger: logger),
            configuration: PushConfiguration(endpoint: URL(string: "https://127.0.0.1:9")!, pollInterval: pollInterval), metrics: PushMetrics(),
            logger: logger, clock: .system, connect: { _ in apns })
    }

    @Test func aJobsAPNsIDIsTheSameForEachSendOfOneChangeAndNewForTheNext() {
        let enqueued = Date(timeIntervalSince1970: 1_790_000_000.123)
        func job(id: Int64 = 7, generation: Int64 = 0, enqueuedAt: Date = enqueued, attempts: Int = 1) -> PushJob {
            PushJob(
                id: id, orderTypeIdentifier: Self.type, pushToken: "token", orderIdentifier: "A", generation: generation, attempts: attempts,
                enqueuedAt: enqueuedAt, leaseOwner: "instance-\(attempts)", position: PushQueuePosition(availableAt: 0, id: id))
        }
        // Sent again after a lease ran out (another attempt, another owner): the same push, so the same id.
        #expect(job().apnsID == job(attempts: 2).apnsID)
        // A change coalesced into the job, another job, or a job queued anew for the same token: another push.
        #expect(Set([job(), job(generation: 1), job(id: 8), job(enqueuedAt: enqueued.addingTimeInterval(0.001))].map(\.apnsID)).count == 4)
        // A well-formed UUID (RFC 9562 version 8), as APNs requires of `apns-id`.
        let text = job().apnsID.uuidString
        #expect(Array(text)[14] == "8" && "89AB".contains(Array(text)[19]))
    }

    @Test func eachAnswerResolvesItsJobAndTheStoreOutlivesTheDrainingDispatcher() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dispatcher-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let databasePath = directory.appendingPathComponent("orders.sqlite").path
        let masterKey = MasterKey.generate()
        let logger = Logger(label: "dispatcher-test")

        let store = try await Self.seededStore(path: databasePath, masterKey: masterKey, in: directory)
        let apns = StandInAPNs(answers: Self.answers)
        let cpu = CPUWorkPool(threadCount: 1)
        let dispatcher = Self.dispatcher(outbox: store, store: store, apns: apns, cpu: cpu, logger: logger)
        // As the application lists them: the store first, so that it closes last.
        let group = ServiceGroup(configuration: .init(services: [store, cpu, dispatcher], logger: logger))
        try await withThrowingTaskGroup { tasks in
            tasks.addTask { try await group.run() }
            // Every push is in flight, held by the stand-in, when shutdown begins: the dispatcher then records their
            // outcomes while shutting down, through the store that is still open.
            await apns.received(count: Self.answers.count)
            await group.triggerGracefulShutdown()
            apns.answer()
            try await tasks.waitForAll()
        }

        await #expect(throws: OrderStoreError.storeClosed) { try await store.merchants() }
        #expect(apns.isShutDown, "the dispatcher closes its clients when it stops")
        #expect(Set(apns.pushes.map(\.deviceToken)) == Set(Self.answers.keys), "one push per device, none to the broken order type")
        #expect(apns.pushes.allSatisfy { $0.topic == Self.type })

        let reopened = try await SQLOrderStore.sqlite(path: databasePath, masterKey: masterKey)
        var outcomes: [String: PushOutcome] = [:]
        for type in [Self.type, Self.brokenType] {
            for entry in try await reopened.pushLog(orderTypeIdentifier: type, orderIdentifier: "A", limit: 10) {
                outcomes[entry.tokenSuffix] = entry.outcome
            }
        }
        #expect(
            outcomes
                == [
                    "token-delivered": .delivered, "token-gone": .tokenRemoved, "token-returned": .tokenRemoved, "token-baddevice": .tokenRemoved,
                    "token-busy": .retrying, "token-badtopic": .parked, "token-stranded": .parked,
                ].mapKeys { String($0.suffix(8)) })
        let remaining = try await reopened.registrations(orderTypeIdentifier: Self.type, orderIdentifier: "A").map(\.pushToken)
        #expect(
            Set(remaining) == ["token-delivered", "token-busy", "token-badtopic", "token-returned"],
            "an unregistered or bad token is removed, unless registered after APNs' timestamp")
        let depth = try await reopened.pushQueueDepth()
        #expect(depth.pending == 1, "the retryable failure waits for its retry")
        #expect(depth.parked == 2, "a configuration error and a missing credential park their jobs")
        try await reopened.shutdown()
    }

    /// A store that is down for a moment when the answers come back (a PostgreSQL restart) costs no push twice: the
    /// dispatcher records the outcomes once it is back, within the lease, instead of letting the lease run out.
    @Test func outcomesThatCannotBeRecordedAtOnceAreRecordedWhenTheStoreIsBack() async throws {
        try await Self.withSeededStore { store in
            let logger = Logger(label: "dispatcher-test")
            let outbox = OutboxDownForAWhile(store, failedRecords: 2)
            let apns = StandInAPNs(answers: Self.answers)
            apns.answer()
            let cpu = CPUWorkPool(threadCount: 1)
            let dispatcher = Self.dispatcher(outbox: outbox, store: store, apns: apns, cpu: cpu, logger: logger)
            let group = ServiceGroup(configuration: .init(services: [store, cpu, dispatcher], logger: logger))
            // Every device's outcome in the push log, by token suffix.
            var logged: Set<String> = []
            let expected = Set((Array(Self.answers.keys) + ["token-stranded"]).map { String($0.suffix(8)) })
            try await withThrowingTaskGroup { tasks in
                tasks.addTask { try await group.run() }
                // The retries wait 0.25 s and 0.5 s; without them nothing is recorded before the 60 s lease runs out.
                let deadline = ContinuousClock.now.advanced(by: .seconds(10))
                while logged != expected, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                    logged = []
                    for type in [Self.type, Self.brokenType] {
                        logged.formUnion(try await store.pushLog(orderTypeIdentifier: type, orderIdentifier: "A", limit: 10).map(\.tokenSuffix))
                    }
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(logged == expected, "every outcome recorded, the broken order type's included")
            #expect(outbox.failedAttempts == 2)
            // The 503's push is retried after its backoff (about a second); every other push went once.
            let sent = Dictionary(grouping: apns.pushes, by: \.deviceToken).mapValues(\.count)
            #expect(
                sent.filter { $0.key != "token-busy" }
                    == Dictionary(uniqueKeysWithValues: Self.answers.keys.filter { $0 != "token-busy" }.map { ($0, 1) }))
        }
    }

    /// Jobs queued together cost one claim, and no empty claim follows it or the record of their outcomes; a job that a
    /// change made due again while in flight is claimed again at once, without waiting for a poll (an hour here).
    @Test func queuedPushesCostOneClaimAndAChangeInFlightOneMore() async throws {
        try await Self.withSeededStore { store in
            let logger = Logger(label: "dispatcher-test")
            let outbox = OutboxDownForAWhile(store, failedRecords: 0)
            let apns = StandInAPNs(answers: Self.answers)
            let cpu = CPUWorkPool(threadCount: 1)
            let dispatcher = Self.dispatcher(outbox: outbox, store: store, apns: apns, cpu: cpu, logger: logger, pollInterval: .seconds(3600))
            let group = ServiceGroup(configuration: .init(services: [store, cpu, dispatcher], logger: logger))
            try await withThrowingTaskGroup { tasks in
                tasks.addTask { try await group.run() }
                // Every push of the working order type is in flight, held by the stand-in, when the order changes.
                await apns.received(count: Self.answers.count)
                _ = try await store.enqueuePushes(orderTypeIdentifier: Self.type, orderIdentifier: "A")
                apns.answer()
                // The delivered device hears of the change too: its job was made due again when its outcome was recorded.
                #expect(try await Poll.until(timeout: .seconds(10)) { apns.pushes.count > Self.answers.count })
                try await Task.sleep(for: .milliseconds(300))
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            let sent = Dictionary(grouping: apns.pushes, by: \.deviceToken).mapValues(\.count)
            #expect(sent["token-delivered"] == 2, "\(sent)")
            #expect(apns.pushes.count == Self.answers.count + 1, "\(sent)")
            #expect(outbox.claims == 2, "one claim for the queued jobs, one for the job due again")
        }
    }

    /// The group stops its services in reverse order: the application lists the store first, so it closes last.
    @Test func theApplicationListsTheStoreFirstSoThatItClosesLast() async throws {
        let server = try TestServer()
        defer { server.remove() }
        let app = try await OrderTrackApplication.build(configuration: try server.configuration(), logger: Logger(label: "store-order-test"))
        let first = try #require(app.application.services.first as? SQLOrderStore)
        #expect(first === (app.store as? SQLOrderStore))
        try await app.store.shutdown()
    }
}

extension Dictionary {
    fileprivate func mapKeys<Key2: Hashable>(_ transform: (Key) -> Key2) -> [Key2: Value] {
        Dictionary<Key2, Value>(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}

/// The store's outbox, whose first `failedRecords` attempts at recording outcomes fail as an unreachable database does.
final class OutboxDownForAWhile: PushOutbox {
    private let base: any PushOutbox
    private let failures: Mutex<(remaining: Int, failed: Int)>

    init(_ base: any PushOutbox, failedRecords: Int) {
        self.base = base
        failures = Mutex((failedRecords, 0))
    }

    var failedAttempts: Int { failures.withLock { $0.failed } }
    /// How many claims the dispatcher made, empty ones included.
    var claims: Int { claimCount.withLock { $0 } }
    private let claimCount = Mutex(0)

    func resolvePushJobs(_ outcomes: [(job: PushJob, resolution: PushJobResolution, log: PushLogEntry)]) async throws -> Int {
        let fail = failures.withLock { state in
            guard state.remaining > 0 else { return false }
            state.remaining -= 1
            state.failed += 1
            return true
        }
        if fail { throw OrderStoreError.unavailable(operation: "resolve push jobs", reason: "the test's database is down") }
        return try await base.resolvePushJobs(outcomes)
    }

    func enqueuePushes(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int {
        try await base.enqueuePushes(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
    }
    func claimPushJobs(limit: Int, leaseOwner: String, leaseDuration: TimeInterval, after position: PushQueuePosition?) async throws -> [PushJob] {
        claimCount.withLock { $0 += 1 }
        return try await base.claimPushJobs(limit: limit, leaseOwner: leaseOwner, leaseDuration: leaseDuration, after: position)
    }
    func renewPushLeases(jobIDs: [Int64], leaseOwner: String, leaseDuration: TimeInterval) async throws -> Int {
        try await base.renewPushLeases(jobIDs: jobIDs, leaseOwner: leaseOwner, leaseDuration: leaseDuration)
    }
    func releasePushLeases() async throws { try await base.releasePushLeases() }
    func expandPushFanOut(limit: Int) async throws -> Int? { try await base.expandPushFanOut(limit: limit) }
    func observePushFanOuts(_ observer: @escaping @Sendable () -> Void) { base.observePushFanOuts(observer) }
    func pushQueueDepth() async throws -> (pending: Int, parked: Int) { try await base.pushQueueDepth() }
}

/// Answers pushes from a table, once the test lets it: until then every push it receives is held in flight.
final class StandInAPNs: APNsSending {
    private struct State {
        var pushes: [APNsPush] = []
        var answering = false
        var held: [CheckedContinuation<Void, Never>] = []
        var waitingFor: (count: Int, continuation: CheckedContinuation<Void, Never>)?
        var isShutDown = false
    }

    private let answers: [String: APNsResult]
    private let state = Mutex(State())

    init(answers: [String: APNsResult]) {
        self.answers = answers
    }

    var pushes: [APNsPush] { state.withLock { $0.pushes } }
    var isShutDown: Bool { state.withLock { $0.isShutDown } }

    func send(_ push: APNsPush) async -> APNsResult {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                state.pushes.append(push)
                var ready: [CheckedContinuation<Void, Never>] = []
                if let waiting = state.waitingFor, state.pushes.count >= waiting.count {
                    ready.append(waiting.continuation)
                    state.waitingFor = nil
                }
                if state.answering { ready.append(continuation) } else { state.held.append(continuation) }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }
        return answers[push.deviceToken] ?? .rejected(status: 400, reason: .apns(.badDeviceToken))
    }

    func shutdown() async throws {
        state.withLock { $0.isShutDown = true }
    }

    /// Returns once `count` pushes have arrived.
    func received(count: Int) async {
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { state in
                guard state.pushes.count < count else { return true }
                state.waitingFor = (count, continuation)
                return false
            }
            if arrived { continuation.resume() }
        }
    }

    /// Answers the pushes held so far and every later one at once.
    func answer() {
        let held = state.withLock { state in
            state.answering = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }
}
