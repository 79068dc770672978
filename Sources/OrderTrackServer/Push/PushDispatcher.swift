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
    /// Connect only with identities Apple issued (development mode against Apple's APNs): a development identity's
    /// pushes are parked with the reason instead of being sent where they can only be refused.
    public var requireAppleIssuedIdentity = false

    /// Whether `endpoint` is Apple's APNs (production or sandbox) rather than a local stand-in.
    public var isApplesAPNs: Bool { endpoint.host?.hasSuffix(".push.apple.com") == true }

    public init(
        endpoint: URL = APNsConfiguration.productionEndpoint, extraTrustRootsPEM: String? = nil, expiration: TimeInterval = 86_400,
        concurrency: Int = 1000, maximumAttempts: Int = 10, initialBackoff: TimeInterval = 1, maximumBackoff: TimeInterval = 900,
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
/// slow push holds up only its own slot. It depends on two small seams: the ``PushOutbox`` role of the store, and
/// `connect`, which makes an ``APNsSending`` for a credential (an ``APNsClient``, or a test's stand-in).
final class PushDispatcher: Service, Sendable {
    private let store: any PushOutbox
    private let configuration: PushConfiguration
    private let metrics: PushMetrics
    private let logger: Logger
    private let clients: APNsClientPool
    private let leaseOwner = UUID().uuidString
    private let clock: ServerClock
    /// Wake-ups of the claim loop: new jobs, recorded outcomes, poll ticks, shutdown. At most one waits, so a burst
    /// of them costs one claim, and one that arrives while the loop is busy is kept for its next wait.
    private let wakeups: AsyncStream<Void>
    private let wakeup: AsyncStream<Void>.Continuation
    /// Wake-ups of the fan-out expander: a commit that left a fan-out to expand, poll ticks (another instance's, or one
    /// whose expander died).
    private let fanOutWakeups: AsyncStream<Void>
    private let fanOutWakeup: AsyncStream<Void>.Continuation
    private let depthRefresh: RefreshThrottle
    /// Jobs claimed and not yet recorded: their leases are kept alive.
    private let held = Mutex(Set<Int64>())

    init(
        store: any PushOutbox, credentials: CredentialProvider, configuration: PushConfiguration, metrics: PushMetrics, logger: Logger,
        clock: ServerClock,
        connect: @escaping @Sendable (APNsConfiguration) throws -> any APNsSending = { try APNsClient(configuration: $0) }
    ) {
        self.store = store
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
        depthRefresh = RefreshThrottle(clock: clock)
        self.clients = APNsClientPool(configuration: configuration, credentials: credentials, clock: clock, connect: connect)
        (wakeups, wakeup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (fanOutWakeups, fanOutWakeup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        store.observePushFanOuts { [fanOutWakeup] in fanOutWakeup.yield() }
    }

    /// Drops the APNs connection of an order type whose credential changed; the next push uses the new one.
    func credentialChanged(_ orderTypeIdentifier: String) async {
        await clients.invalidate(orderTypeIdentifier)
    }

    /// Tells the dispatcher new jobs are waiting, so it need not wait for its next poll.
    func wake() {
        wakeup.yield()
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await self.dispatchUntilCancelled()
        } onGracefulShutdown: {
            self.wake()
            self.fanOutWakeup.finish()
        }
        await clients.shutdown()
    }

    /// Runs the claim loop, the recorder, the lease keeper, the poll ticker and the closing of replaced APNs clients
    /// until shutdown; pushes in flight then finish and are recorded.
    private func dispatchUntilCancelled() async {
        let outcomes = OutcomeQueue()
        await withDiscardingTaskGroup { keeper in
            keeper.addTask { await self.keepLeases() }
            keeper.addTask { await self.tickPolls() }
            keeper.addTask { await self.clients.closeRetired() }
            keeper.addTask { await self.expandFanOuts() }
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
        while (try? await clock.sleep(for: interval)) != nil {
            let ids = held.withLock { Array($0) }
            do {
                try await store.renewPushLeases(jobIDs: ids, leaseOwner: leaseOwner, leaseDuration: configuration.leaseDuration)
            } catch {
                logger.error("could not renew push leases", metadata: ["jobs": .stringConvertible(ids.count), "error": .string("\(error)")])
            }
        }
    }

    /// Wakes the claim loop and the fan-out expander every poll interval: other instances may have queued jobs or left
    /// fan-outs, and retries come due.
    private func tickPolls() async {
        while (try? await clock.sleep(for: configuration.pollInterval)) != nil {
            wakeup.yield()
            fanOutWakeup.yield()
        }
    }

    /// Queues the rest of large fan-outs a chunk per transaction, waking the claim loop after each: the first chunk,
    /// queued with the change, is being sent meanwhile.
    private func expandFanOuts() async {
        var wakeups = fanOutWakeups.makeAsyncIterator()
        while await wakeups.next() != nil {
            do {
                while !Task.isCancelled, let queued = try await store.expandPushFanOut(limit: Self.fanOutChunk) {
                    if queued > 0 { wakeup.yield() }
                }
            } catch {
                logger.error("could not queue a fan-out's pushes; trying again at the next poll", metadata: ["error": .string("\(error)")])
            }
        }
    }

    /// Tokens a fan-out's expansion queues per transaction: a few times what one claim takes, so that the queue stays
    /// ahead of the sends, and short enough not to hold SQLite's writer from order writes for long.
    static let fanOutChunk = 5_000

    /// Claims jobs whenever a chunk of the window is free and starts their sends.
    private func claimAndSend(into outcomes: OutcomeQueue, sends: inout DiscardingTaskGroup) async {
        var wakeups = self.wakeups.makeAsyncIterator()
        let window = SendWindow(capacity: configuration.concurrency)
        let chunk = max(1, configuration.concurrency / 4)
        // Claims go on from where the last full one ended; one that comes up short, and the first each second, starts
        // over: jobs behind the position are due too when their claimer died or when a claim skipped them while another
        // transaction held them (SKIP LOCKED). A second keeps those waits short and the scans from the start rare.
        var position: PushQueuePosition?
        var restartDue = clock.now
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let room = await window.room(atLeast: chunk)
            guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
            if clock.now >= restartDue {
                position = nil
                restartDue = clock.now.advanced(by: .seconds(1))
            }
            let jobs: [PushJob]
            do {
                jobs = try await store.claimPushJobs(limit: room, leaseOwner: leaseOwner, leaseDuration: configuration.leaseDuration, after: position)
            } catch {
                logger.error("push outbox unavailable", metadata: ["error": .string("\(error)")])
                jobs = []
            }
            let fromStart = position == nil
            position = jobs.count == room ? jobs.map(\.position).max() : nil
            // A claim from the start that came up short took every job due: the next waits for a wake-up (a commit that
            // queued jobs, an outcome that made one due again, the poll) instead of finding nothing, as it did after
            // every change's claim.
            let drained = jobs.count < room && fromStart
            guard !jobs.isEmpty else {
                guard await wakeups.next() != nil else { return }
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
            if drained {
                guard await wakeups.next() != nil else { return }
            }
        }
    }

    /// Records outcomes as they arrive, everything waiting in one transaction.
    private func recordOutcomes(from queue: OutcomeQueue) async {
        while var outcomes = await queue.next() {
            if outcomes.count < Self.lingerBelow {
                // A few more answers are moments away: one commit for them all is cheaper than one each.
                try? await clock.sleep(for: Self.linger)
                outcomes += queue.takeWaiting()
            }
            let (taken, dueAgain) = await record(outcomes, from: queue)
            held.withLock { $0.subtract(taken.map(\.job.id)) }
            // A job that changed while in flight is due again now.
            if dueAgain > 0 { wakeup.yield() }
        }
    }

    static let lingerBelow = 64
    /// Delays only the recording (a lease's release, a changed job's next push), never a push. 20 ms rather than 2:
    /// PostgreSQL's statements per update 22.7 to 19.6 and its CPU per update 11 to 16 % less in the soak (100
    /// updates/s, one instance, two alternated pairs on 2026-12-03), with update-to-Wallet p99 no worse; SQLite's
    /// CPU per update the same within the noise (300 updates/s, two pairs).
    static let linger = Duration.milliseconds(20)
    /// Waits between attempts at recording outcomes: about 8 s in all, past a PostgreSQL restart's recovery, and well
    /// inside a lease, which the lease keeper goes on renewing meanwhile.
    static let recordRetryDelays: [Duration] = [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4)]

    /// Whether a failure to record may pass by itself: a database unreachable or busy, not a closed store or a fault.
    private static func mayPass(_ error: any Error) -> Bool {
        switch error as? OrderStoreError {
        case .unavailable, .busy: true
        default: false
        }
    }

    /// Records `outcomes`, trying again while the store is unavailable (answers that arrive meanwhile join the next
    /// attempt); returns every outcome it took, recorded or not, and how many jobs the record made due again. Outcomes
    /// it could not record are dropped: their leases run out and the jobs are sent again, at least once and never lost,
    /// but a push sent twice is noise on the customer's phone, so a store that is back within seconds should not cost
    /// one.
    private func record(_ outcomes: [PushOutcomeRecord], from queue: OutcomeQueue) async -> (taken: [PushOutcomeRecord], dueAgain: Int) {
        var outcomes = outcomes
        var delays = Self.recordRetryDelays.makeIterator()
        while true {
            do {
                return (outcomes, try await store.resolvePushJobs(outcomes))
            } catch {
                let metadata: Logger.Metadata = ["jobs": .stringConvertible(outcomes.count), "error": .string("\(error)")]
                guard Self.mayPass(error), let delay = delays.next(), (try? await clock.sleep(for: delay)) != nil else {
                    logger.error("could not record push outcomes; their jobs are sent again when their leases run out", metadata: metadata)
                    return (outcomes, 0)
                }
                logger.warning("could not record push outcomes yet; trying again", metadata: metadata)
                outcomes += queue.takeWaiting()
            }
        }
    }

    private func client(for orderTypeIdentifier: String) async -> Result<any APNsSending, any Error> {
        do {
            return .success(try await clients.client(for: orderTypeIdentifier))
        } catch {
            return .failure(error)
        }
    }

    private func send(_ job: PushJob, through client: Result<any APNsSending, any Error>) async -> PushOutcomeRecord {
        let verdict: PushVerdict
        var apnsID: String?
        switch client {
        case .success(let client):
            let result = await client.send(
                APNsPush(
                    deviceToken: job.pushToken, topic: job.orderTypeIdentifier, expiration: clock.date.addingTimeInterval(configuration.expiration),
                    apnsID: job.apnsID))
            verdict = resolve(result, attempts: job.attempts)
            metrics.record(result, outcome: verdict.outcome, enqueuedAt: job.enqueuedAt, at: clock.date)
            if case .configurationError = result {
                logger.error(
                    "APNs configuration error: pushes for this order type will fail until it is fixed",
                    metadata: ["type": .string(job.orderTypeIdentifier), "reason": .string(verdict.reason ?? "unknown")])
            }
            if case .delivered(let id) = result { apnsID = id.apnsIDText }
        case .failure(let error as OrderTrackError) where error.code == .developmentIdentityNotSent:
            verdict = PushVerdict(resolution: .park, outcome: .parked, status: nil, reason: error.reason)
        case .failure(let error):
            verdict = PushVerdict(
                resolution: .park, outcome: .parked, status: nil, reason: "no APNs credential for \(job.orderTypeIdentifier): \(error)")
            metrics.recordMissingCredential()
            logger.error(
                "no usable APNs credential: pushes for this order type will fail until it is fixed",
                metadata: ["type": .string(job.orderTypeIdentifier), "error": .string("\(error)")])
        }
        if verdict.outcome != .delivered {
            logger.warning(
                "push not delivered",
                metadata: [
                    "order": .string("\(job.orderTypeIdentifier)/\(job.orderIdentifier)"), "device": .string("…" + job.pushToken.suffix(8)),
                    "outcome": .string(verdict.outcome.rawValue), "reason": .string(verdict.reason ?? "unknown"),
                ])
        }
        let entry = PushLogEntry(
            orderTypeIdentifier: job.orderTypeIdentifier, orderIdentifier: job.orderIdentifier, tokenSuffix: String(job.pushToken.suffix(8)),
            attempt: job.attempts, status: verdict.status, reason: verdict.reason, apnsID: apnsID, outcome: verdict.outcome, at: clock.date)
        return (job, verdict.resolution, entry)
    }

    /// What the outbox should do after an APNs answer, and how the push log records it.
    func resolve(_ result: APNsResult, attempts: Int) -> PushVerdict {
        switch result {
        case .delivered:
            return PushVerdict(resolution: .delivered, outcome: .delivered, status: 200, reason: nil)
        case .unregistered(let since):
            return PushVerdict(
                resolution: .dropToken(registeredBefore: since), outcome: .tokenRemoved, status: 410, reason: APNsErrorReason.unregistered.rawValue)
        case .badDeviceToken:
            return PushVerdict(
                resolution: .dropToken(registeredBefore: nil), outcome: .tokenRemoved, status: 400, reason: APNsErrorReason.badDeviceToken.rawValue)
        case .retryable(let status, let reason):
            guard attempts < configuration.maximumAttempts else {
                return PushVerdict(resolution: .park, outcome: .parked, status: status, reason: "\(reason) (gave up after \(attempts) attempts)")
            }
            return PushVerdict(
                resolution: .retry(at: clock.date.addingTimeInterval(backoff(attempts: attempts))), outcome: .retrying, status: status,
                reason: "\(reason)"
            )
        case .configurationError(let status, let reason):
            return PushVerdict(resolution: .park, outcome: .parked, status: status, reason: "\(reason)")
        case .rejected(let status, let reason):
            return PushVerdict(resolution: .park, outcome: .parked, status: status, reason: "\(reason)")
        }
    }

    /// Exponential backoff with full jitter in [½, 1] of the step, so retries of many tokens spread out.
    func backoff(attempts: Int) -> TimeInterval {
        let step = min(configuration.maximumBackoff, configuration.initialBackoff * pow(2, Double(max(0, attempts - 1))))
        return step * Double.random(in: 0.5...1)
    }

    /// Updates the queue-depth gauges, at most once a second: `/metrics` calls it before it renders. Counting is a scan
    /// (33 ms of PostgreSQL's time with 100,000 jobs queued), which the dispatcher did each second of a fan-out: 8 % of
    /// the database's time in the fan-out benchmark. A scraper every 15 s costs one count per scrape.
    func refreshQueueDepth() async {
        if depthRefresh.take(), let depth = try? await store.pushQueueDepth() { metrics.queueDepth(pending: depth.pending, parked: depth.parked) }
    }
}

/// What becomes of a job after one attempt: the outbox's next step and the push log's line.
struct PushVerdict: Sendable, Hashable {
    var resolution: PushJobResolution
    var outcome: PushOutcome
    /// APNs' HTTP status, if it answered.
    var status: Int?
    /// APNs' reason or the failure, in words.
    var reason: String?
}
