import APNs
import Foundation
import Logging
import OrderPersistence
import ServiceLifecycle
import Synchronization

/// How pushes leave the outbox.
public struct PushConfiguration: Sendable {
    /// APNs base URL; production by default, as Wallet uses production APNs.
    public var endpoint: URL
    /// Extra trusted root (PEM) for the APNs endpoint, e.g. a local mock's CA.
    public var extraTrustRootsPEM: String?
    /// `apns-expiration` = now + this; non-zero so offline devices still get the push.
    public var expiration: TimeInterval
    /// Pushes in flight at once.
    public var concurrency: Int
    /// Attempts before a retryable failure parks the job.
    public var maximumAttempts: Int
    /// First retry delay; doubles per attempt (with jitter) up to `maximumBackoff`.
    public var initialBackoff: TimeInterval
    public var maximumBackoff: TimeInterval
    /// How long a claim lasts; a job whose sender died is sent again after it.
    public var leaseDuration: TimeInterval
    /// Longest sleep between outbox checks when nobody signals new work.
    public var pollInterval: Duration
    /// Longest wait for one APNs answer.
    public var timeout: Duration
    /// How often an order type's stored credential is compared with the one in use: another instance may rotate it.
    public var credentialRecheckInterval: Duration = .seconds(10)

    public init(
        endpoint: URL = APNsConfiguration.productionEndpoint, extraTrustRootsPEM: String? = nil, expiration: TimeInterval = 86_400,
        concurrency: Int = 256, maximumAttempts: Int = 10, initialBackoff: TimeInterval = 1, maximumBackoff: TimeInterval = 900,
        leaseDuration: TimeInterval = 60, pollInterval: Duration = .seconds(1), timeout: Duration = .seconds(30)
    ) {
        self.endpoint = endpoint
        self.extraTrustRootsPEM = extraTrustRootsPEM
        self.expiration = expiration
        self.concurrency = concurrency
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.leaseDuration = leaseDuration
        self.pollInterval = pollInterval
        self.timeout = timeout
    }
}

/// Sends what the outbox holds, as a pipeline: a claim loop keeps up to `concurrency` pushes in flight through each
/// order type's APNs client (one long-lived HTTP/2 connection per credential), claiming more as soon as a chunk of room
/// opens, while a recorder task writes the outcomes in batches as they arrive. Claims, sends and commits overlap; a
/// slow push holds up only its own slot.
final class PushDispatcher: Service, Sendable {
    private let store: any OrderStore
    private let packages: PackageService
    private let configuration: PushConfiguration
    private let metrics: PushMetrics
    private let logger: Logger
    private let clients: APNsClientPool
    private let leaseOwner = UUID().uuidString
    private let signal = WakeupSignal()
    private let depthRefresh = Mutex(ContinuousClock.Instant?.none)
    /// Jobs claimed and not yet recorded: their leases are kept alive.
    private let held = Mutex(Set<Int64>())

    init(store: any OrderStore, packages: PackageService, configuration: PushConfiguration, metrics: PushMetrics, logger: Logger) {
        self.store = store
        self.packages = packages
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.clients = APNsClientPool(configuration: configuration, recheckInterval: configuration.credentialRecheckInterval)
    }

    /// Drops the APNs connection of an order type whose credential changed; the next push uses the new one.
    func credentialChanged(_ orderTypeIdentifier: String) async {
        await clients.invalidate(orderTypeIdentifier)
    }

    /// Tells the dispatcher new jobs are waiting, so it need not wait for its next poll.
    func wake() {
        Task { await signal.signal() }
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await self.dispatchUntilCancelled()
        } onGracefulShutdown: {
            self.wake()
        }
        await clients.shutdown()
    }

    /// Runs the claim loop, the recorder and the lease keeper until shutdown; pushes in flight then finish and are
    /// recorded.
    private func dispatchUntilCancelled() async {
        let outcomes = OutcomeQueue()
        await withDiscardingTaskGroup { keeper in
            keeper.addTask { await self.keepLeases() }
            await withDiscardingTaskGroup { group in
                group.addTask { await self.recordOutcomes(from: outcomes) }
                await withDiscardingTaskGroup { sends in
                    await self.claimAndSend(into: outcomes, sends: &sends)
                }
                outcomes.finish()
            }
            keeper.cancelAll()
        }
    }

    /// Extends the leases of jobs claimed and not yet recorded, a few times per lease. Only a dead instance's claims
    /// run out, however long a send or the queue before it takes; a job whose outcome could not be recorded is no
    /// longer held, so its lease runs out and it is sent again.
    private func keepLeases() async {
        let interval = Duration.milliseconds(Int64(max(50, configuration.leaseDuration * 1000 / 3)))
        while (try? await Task.sleep(for: interval)) != nil {
            let ids = held.withLock { Array($0) }
            do {
                try await store.renewPushLeases(jobIDs: ids, leaseOwner: leaseOwner, leaseDuration: configuration.leaseDuration)
            } catch {
                logger.error("could not renew push leases", metadata: ["jobs": .stringConvertible(ids.count), "error": .string("\(error)")])
            }
        }
    }

    /// Claims jobs whenever a chunk of the window is free and starts their sends.
    private func claimAndSend(into outcomes: OutcomeQueue, sends: inout DiscardingTaskGroup) async {
        let window = SendWindow(capacity: configuration.concurrency)
        let chunk = max(1, configuration.concurrency / 4)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let room = await window.room(atLeast: chunk)
            guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
            let jobs: [PushJob]
            do {
                jobs = try await store.claimPushJobs(limit: room, leaseOwner: leaseOwner, leaseDuration: configuration.leaseDuration)
            } catch {
                logger.error("push outbox unavailable", metadata: ["error": .string("\(error)")])
                jobs = []
            }
            guard !jobs.isEmpty else {
                await refreshQueueDepth(force: true)
                await signal.wait(timeout: configuration.pollInterval)
                continue
            }
            window.started(jobs.count)
            held.withLock { $0.formUnion(jobs.map(\.id)) }
            // Each order type's client is looked up once per claim rather than once per push.
            for (type, group) in Dictionary(grouping: jobs, by: \.orderTypeIdentifier) {
                let client = await client(for: type)
                for job in group {
                    sends.addTask {
                        outcomes.append(await self.send(job, through: client))
                        window.finished()
                    }
                }
            }
        }
    }

    /// Records outcomes as they arrive, everything waiting in one transaction.
    private func recordOutcomes(from queue: OutcomeQueue) async {
        while var outcomes = await queue.next() {
            if outcomes.count < Self.lingerBelow {
                // A few more answers are moments away: one commit for them all is cheaper than one each.
                try? await Task.sleep(for: Self.linger)
                outcomes += queue.takeWaiting()
            }
            do {
                try await store.resolvePushJobs(outcomes)
            } catch {
                // The leases run out and the jobs are sent again: at least once, never lost.
                logger.error("could not record push outcomes", metadata: ["jobs": .stringConvertible(outcomes.count), "error": .string("\(error)")])
            }
            held.withLock { $0.subtract(outcomes.map(\.job.id)) }
            // A job that changed while in flight is due again now.
            await signal.signal()
            await refreshQueueDepth(force: false)
        }
    }

    static let lingerBelow = 64
    static let linger = Duration.milliseconds(2)

    private func client(for orderTypeIdentifier: String) async -> Result<APNsClient, any Error> {
        do {
            return .success(
                try await clients.client(
                    for: orderTypeIdentifier, store: store, identity: { try await self.packages.identity(for: $0) }))
        } catch {
            return .failure(error)
        }
    }

    private func send(_ job: PushJob, through client: Result<APNsClient, any Error>) async -> PushOutcome {
        let result: APNsResult
        switch client {
        case .success(let client):
            result = await client.send(
                APNsPush(
                    deviceToken: job.pushToken, topic: job.orderTypeIdentifier, expiration: Date().addingTimeInterval(configuration.expiration)))
        case .failure(let error):
            result = .configurationError(status: nil, reason: "no APNs credential for \(job.orderTypeIdentifier): \(error)")
        }
        let (resolution, outcome, status, reason) = resolve(result, attempts: job.attempts)
        metrics.record(result, outcome: outcome, enqueuedAt: job.enqueuedAt)
        if case .configurationError = result {
            logger.error(
                "APNs configuration error: pushes for this order type will fail until it is fixed",
                metadata: [
                    "type": .string(job.orderTypeIdentifier), "reason": .string(reason ?? "unknown"),
                ])
        }
        var apnsID: String?
        if case .delivered(let id) = result { apnsID = id.uuidString }
        let entry = PushLogEntry(
            orderTypeIdentifier: job.orderTypeIdentifier, orderIdentifier: job.orderIdentifier, tokenSuffix: String(job.pushToken.suffix(8)),
            attempt: job.attempts, status: status, reason: reason, apnsID: apnsID, outcome: outcome, at: Date())
        return (job, resolution, entry)
    }

    /// What the outbox should do after an APNs answer, and how the push log names it.
    func resolve(_ result: APNsResult, attempts: Int) -> (PushJobResolution, outcome: String, status: Int?, reason: String?) {
        switch result {
        case .delivered:
            return (.delivered, "delivered", 200, nil)
        case .unregistered(let since):
            return (.dropToken(registeredBefore: since), "token-removed", 410, "Unregistered")
        case .badDeviceToken:
            return (.dropToken(registeredBefore: nil), "token-removed", 400, "BadDeviceToken")
        case .retryable(let status, let reason):
            guard attempts < configuration.maximumAttempts else { return (.park, "parked", status, "\(reason) (gave up after \(attempts) attempts)") }
            return (.retry(at: Date().addingTimeInterval(backoff(attempts: attempts))), "retrying", status, reason)
        case .configurationError(let status, let reason):
            return (.park, "parked", status, reason)
        case .rejected(let status, let reason):
            return (.park, "parked", status, reason)
        }
    }

    /// Exponential backoff with full jitter in [½, 1] of the step, so retries of many tokens spread out.
    func backoff(attempts: Int) -> TimeInterval {
        let step = min(configuration.maximumBackoff, configuration.initialBackoff * pow(2, Double(max(0, attempts - 1))))
        return step * Double.random(in: 0.5...1)
    }

    /// Updates the queue-depth gauges: when idle, and at most once a second while busy (counting is a scan).
    private func refreshQueueDepth(force: Bool) async {
        let now = ContinuousClock.now
        let due = depthRefresh.withLock { last in
            guard force || last.map({ now - $0 >= .seconds(1) }) ?? true else { return false }
            last = now
            return true
        }
        if due, let depth = try? await store.pushQueueDepth() { metrics.queueDepth(pending: depth.pending, parked: depth.parked) }
    }
}

/// Wakes a sleeping loop early; a signal sent while nobody waits is kept for the next wait.
actor WakeupSignal {
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?

    func signal() {
        if let waiter {
            self.waiter = nil
            waiter.resume()
        } else {
            pending = true
        }
    }

    func wait(timeout: Duration) async {
        if pending {
            pending = false
            return
        }
        await withCheckedContinuation { continuation in
            waiter = continuation
            Task {
                try? await Task.sleep(for: timeout)
                self.signal()
            }
        }
        pending = false
    }
}
