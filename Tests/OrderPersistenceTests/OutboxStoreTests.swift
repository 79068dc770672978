import Foundation
import TestSupport
import Testing

@testable import OrderPersistence

/// The durable push outbox: queued with the change, coalesced, claimed with leases, resolved.
@Suite struct OutboxStoreTests {
    static func entry(_ job: PushJob, outcome: PushOutcome) -> PushLogEntry {
        PushLogEntry(
            orderTypeIdentifier: job.orderTypeIdentifier, orderIdentifier: job.orderIdentifier, tokenSuffix: String(job.pushToken.suffix(8)),
            attempt: job.attempts, status: outcome == .delivered ? 200 : nil, reason: nil, apnsID: nil, outcome: outcome, at: Date())
    }

    /// Writes `document` as the order's next version (an open order, no other field changed).
    func change(_ store: SQLOrderStore, _ fixture: Fixture, _ id: String, from version: Int, to document: [UInt8], at updatedAt: Date = Date())
        async throws -> OrderRecord
    {
        try await store.updateOrder(
            type: fixture.orderType, id: id, expectedVersion: version, document: document, status: "open", orderNumber: nil, updatedAt: updatedAt)
    }

    /// An order with `devices` registrations, updated once: one job per token.
    func prepare(_ store: SQLOrderStore, devices: Int) async throws -> (Fixture, OrderRecord) {
        let fixture = try await Fixture.make(store)
        let order = try await store.createOrder(fixture.order("A"))
        for index in 0..<devices {
            _ = try await store.register(
                deviceLibraryIdentifier: "d\(index)", pushToken: "token\(index)", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
        }
        let updated = try await change(store, fixture, "A", from: order.version, to: [1])
        return (fixture, updated)
    }

    @Test func anUpdateQueuesOneJobPerTokenAndFurtherChangesCoalesce() async throws {
        try await withStore { store, _ in
            let (fixture, updated) = try await prepare(store, devices: 3)
            #expect(try await store.pushQueueDepth().pending == 3)
            _ = try await change(store, fixture, "A", from: updated.version, to: [2])
            #expect(try await store.pushQueueDepth().pending == 3, "a second change coalesces into the waiting jobs")
            #expect(try await store.enqueuePushes(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A") == 3)
            let jobs = try await store.claimPushJobs(limit: 10, leaseOwner: "w1", leaseDuration: 60)
            #expect(Set(jobs.map(\.pushToken)) == ["token0", "token1", "token2"])
            #expect(jobs.allSatisfy { $0.generation == 2 && $0.attempts == 1 })
            #expect(try await store.claimPushJobs(limit: 10, leaseOwner: "w2", leaseDuration: 60).isEmpty, "claimed jobs are not handed out twice")
        }
    }

    @Test func deliveredJobsDisappearUnlessAChangeArrivedInFlight() async throws {
        try await withStore { store, _ in
            let (fixture, updated) = try await prepare(store, devices: 2)
            let jobs = try await store.claimPushJobs(limit: 10, leaseOwner: "w1", leaseDuration: 60).sorted { $0.pushToken < $1.pushToken }
            // A change lands while the pushes are in flight.
            _ = try await change(store, fixture, "A", from: updated.version, to: [3])
            let dueAgain = try await store.resolvePushJobs(jobs.map { ($0, .delivered, Self.entry($0, outcome: .delivered)) })
            #expect(dueAgain == 2, "the dispatcher is told to claim again")
            let again = try await store.claimPushJobs(limit: 10, leaseOwner: "w1", leaseDuration: 60)
            #expect(again.count == 2, "the in-flight change is pushed again")
            #expect(try await store.resolvePushJobs(again.map { ($0, .delivered, Self.entry($0, outcome: .delivered)) }) == 0)
            #expect(try await store.pushQueueDepth().pending == 0)
            let log = try await store.pushLog(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A", limit: 10)
            #expect(log.count == 4 && log.allSatisfy { $0.outcome == .delivered && $0.status == 200 })
        }
    }

    @Test func retriesWaitParkedJobsRestartOnTheNextChange() async throws {
        try await withStore { store, _ in
            let (fixture, updated) = try await prepare(store, devices: 1)
            let job = try #require(try await store.claimPushJobs(limit: 1, leaseOwner: "w", leaseDuration: 60).first)
            try await store.resolvePushJob(job, resolution: .retry(at: Date().addingTimeInterval(3600)), log: Self.entry(job, outcome: .retrying))
            #expect(try await store.claimPushJobs(limit: 1, leaseOwner: "w", leaseDuration: 60).isEmpty, "not due yet")
            #expect(try await store.pushQueueDepth().pending == 1)

            try await store.releasePushLeases()
            _ = try await change(store, fixture, "A", from: updated.version, to: [4])
            #expect(try await store.claimPushJobs(limit: 1, leaseOwner: "w", leaseDuration: 60).isEmpty, "a change does not cut a backoff short")
        }
    }

    @Test func parkingAndTheNextChange() async throws {
        try await withStore { store, _ in
            let (fixture, updated) = try await prepare(store, devices: 1)
            let job = try #require(try await store.claimPushJobs(limit: 1, leaseOwner: "w", leaseDuration: 60).first)
            try await store.resolvePushJob(job, resolution: .park, log: Self.entry(job, outcome: .parked))
            #expect(try await store.pushQueueDepth() == (0, 1))
            _ = try await change(store, fixture, "A", from: updated.version, to: [5])
            let rearmed = try #require(try await store.claimPushJobs(limit: 1, leaseOwner: "w", leaseDuration: 60).first)
            #expect(rearmed.attempts == 1, "a parked job restarts its attempts")
        }
    }

    @Test func deadTokensLoseTheirRegistrations() async throws {
        try await withStore { store, _ in
            let (fixture, _) = try await prepare(store, devices: 2)
            let jobs = try await store.claimPushJobs(limit: 10, leaseOwner: "w", leaseDuration: 60).sorted { $0.pushToken < $1.pushToken }
            try await store.resolvePushJob(jobs[0], resolution: .dropToken(registeredBefore: nil), log: Self.entry(jobs[0], outcome: .tokenRemoved))
            // 410 with a timestamp older than the registration: the registration survives.
            try await store.resolvePushJob(
                jobs[1], resolution: .dropToken(registeredBefore: Date(timeIntervalSince1970: 1)), log: Self.entry(jobs[1], outcome: .tokenRemoved))
            let remaining = try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A").map(\.pushToken)
            #expect(remaining == ["token1"])
            #expect(try await store.pushQueueDepth().pending == 0)
        }
    }

    @Test func anExpiredLeaseIsClaimedAgainAndTheOldClaimerCannotFinish() async throws {
        let clock = TestClock()
        try await withStore(now: { clock.date }) { store, _ in
            _ = try await prepare(store, devices: 1)
            let first = try #require(try await store.claimPushJobs(limit: 1, leaseOwner: "dead-worker", leaseDuration: 0.05).first)
            clock.advance(by: .milliseconds(120))
            let second = try #require(try await store.claimPushJobs(limit: 1, leaseOwner: "live-worker", leaseDuration: 60).first)
            #expect(second.id == first.id && second.attempts == 2)
            try await store.resolvePushJob(first, resolution: .delivered, log: Self.entry(first, outcome: .delivered))
            #expect(try await store.pushQueueDepth().pending == 1, "the stale claimer's result is ignored")
            try await store.resolvePushJob(second, resolution: .delivered, log: Self.entry(second, outcome: .delivered))
            #expect(try await store.pushQueueDepth().pending == 0)
        }
    }

    @Test func aRenewedLeaseOutlivesItsFirstTermButAnExpiredOneIsNotRevived() async throws {
        let clock = TestClock()
        try await withStore(now: { clock.date }) { store, _ in
            _ = try await prepare(store, devices: 2)
            let jobs = try await store.claimPushJobs(limit: 2, leaseOwner: "slow-worker", leaseDuration: 0.3).sorted { $0.pushToken < $1.pushToken }
            try #require(jobs.count == 2)
            #expect(try await store.renewPushLeases(jobIDs: [jobs[0].id], leaseOwner: "slow-worker", leaseDuration: 60) == 1)
            #expect(
                try await store.renewPushLeases(jobIDs: [jobs[1].id], leaseOwner: "someone-else", leaseDuration: 60) == 0, "only the owner renews")
            clock.advance(by: .milliseconds(450))
            let takenOver = try await store.claimPushJobs(limit: 2, leaseOwner: "other-worker", leaseDuration: 60)
            #expect(takenOver.map(\.id) == [jobs[1].id], "only the lease that was not renewed runs out")
            #expect(
                try await store.renewPushLeases(jobIDs: jobs.map(\.id), leaseOwner: "slow-worker", leaseDuration: 60) == 1,
                "the claim another worker took over stays with it")
            try await store.resolvePushJobs(jobs.map { ($0, .delivered, Self.entry($0, outcome: .delivered)) })
            #expect(try await store.pushQueueDepth().pending == 1, "the renewed claim finished; the taken-over one waits for its new owner")
        }
    }

    @Test func thePushLogIsPrunedOldestFirstInBatchesAndNewerEntriesStay() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let now = Date()
            // Outcomes for jobs that no longer exist change no job but are logged, which is all this needs.
            func outcome(_ index: Int, at date: Date) -> (job: PushJob, resolution: PushJobResolution, log: PushLogEntry) {
                let job = PushJob(
                    id: -1, orderTypeIdentifier: fixture.orderType, pushToken: "token\(index)", orderIdentifier: index.isMultiple(of: 2) ? "A" : "B",
                    generation: 0, attempts: 1, enqueuedAt: date, leaseOwner: "gone", position: PushQueuePosition(availableAt: 0, id: -1))
                var log = Self.entry(job, outcome: .delivered)
                log.at = date
                return (job, .park, log)
            }
            let old = (0..<(SQLOrderStore.pruneBatch * 2 + 7)).map { outcome($0, at: now.addingTimeInterval(-40 * 86_400)) }
            let recent = (0..<3).map { outcome($0, at: now.addingTimeInterval(-86_400)) }
            try await store.resolvePushJobs(old)
            try await store.resolvePushJobs(recent)
            #expect(try await store.deletePushLog(before: now.addingTimeInterval(-30 * 86_400)) == old.count)
            let left =
                try await store.pushLog(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A", limit: 100)
                + store.pushLog(orderTypeIdentifier: fixture.orderType, orderIdentifier: "B", limit: 100)
            #expect(left.count == recent.count, "entries younger than the cutoff stay")
            #expect(try await store.deletePushLog(before: now.addingTimeInterval(-30 * 86_400)) == 0)
        }
    }

    @Test func oneBatchResolvesMixedOutcomesAndIgnoresStaleClaims() async throws {
        try await withStore { store, _ in
            let (fixture, updated) = try await prepare(store, devices: 6)
            let jobs = try await store.claimPushJobs(limit: 10, leaseOwner: "w", leaseDuration: 60).sorted { $0.pushToken < $1.pushToken }
            #expect(jobs.count == 6)
            // A change lands while the pushes are in flight.
            _ = try await change(store, fixture, "A", from: updated.version, to: [6])
            var clean = jobs[0]
            clean.generation += 1 // as if claimed after the change: nothing new left to send
            var stale = jobs[5]
            stale.attempts -= 1 // an earlier claim whose lease ran out before the same worker claimed the job again
            try await store.resolvePushJobs([
                (clean, .delivered, Self.entry(clean, outcome: .delivered)),
                (jobs[1], .delivered, Self.entry(jobs[1], outcome: .delivered)),
                (jobs[2], .retry(at: Date().addingTimeInterval(3600)), Self.entry(jobs[2], outcome: .retrying)),
                (jobs[3], .park, Self.entry(jobs[3], outcome: .parked)),
                (jobs[4], .dropToken(registeredBefore: nil), Self.entry(jobs[4], outcome: .tokenRemoved)),
                (stale, .delivered, Self.entry(stale, outcome: .delivered)),
            ])
            let log = try await store.pushLog(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A", limit: 10)
            #expect(log.count == 6, "every attempt is logged, even a stale one")
            // Pending: job 1 (its change arrived in flight), job 2 (waiting to retry), job 5 (still claimed). Parked: job 3.
            #expect(try await store.pushQueueDepth() == (pending: 3, parked: 1))
            let remaining = try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A").map(\.pushToken)
            #expect(Set(remaining) == ["token0", "token1", "token2", "token3", "token5"])
            let again = try await store.claimPushJobs(limit: 10, leaseOwner: "w", leaseDuration: 60)
            #expect(again.map(\.pushToken) == ["token1"], "only the job changed in flight is due now, with fresh attempts")
            #expect(again.first?.attempts == 1)
            // The live claim of job 5 still resolves.
            try await store.resolvePushJobs([(jobs[5], .park, Self.entry(jobs[5], outcome: .parked))])
            #expect(try await store.pushQueueDepth() == (pending: 2, parked: 2))
        }
    }

    @Test func largeBatchesResolveInChunks() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            _ = try await store.createOrder(fixture.order("A"))
            try await store.insertRegistrations(
                (0..<1_203).map {
                    Registration(
                        deviceLibraryIdentifier: "d\($0)", pushToken: "token\($0)", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A",
                        registeredAt: Date())
                })
            #expect(try await store.enqueuePushes(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A") == 1_000)
            #expect(try await Self.expandFanOuts(store) == 203)
            let jobs = try await store.claimPushJobs(limit: 2_000, leaseOwner: "w", leaseDuration: 60)
            #expect(jobs.count == 1_203)
            try await store.resolvePushJobs(jobs.map { ($0, .delivered, Self.entry($0, outcome: .delivered)) })
            #expect(try await store.pushQueueDepth() == (pending: 0, parked: 0))
            #expect(try await store.pushLog(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A", limit: 5_000).count == 1_203)
        }
    }

    @Test func claimsGoOnFromAPositionAndAClaimFromTheStartTakesUpWhatADeadClaimerLeft() async throws {
        let clock = TestClock()
        try await withStore(now: { clock.date }) { store, _ in
            _ = try await prepare(store, devices: 6)
            let dead = try await store.claimPushJobs(limit: 2, leaseOwner: "dead-worker", leaseDuration: 0.05, after: nil)
            let first = try await store.claimPushJobs(limit: 2, leaseOwner: "w", leaseDuration: 60, after: nil)
            #expect(first.map(\.position).min()! > dead.map(\.position).max()!, "a claim from the start steps over claims in flight")
            clock.advance(by: .milliseconds(120))
            let position = try #require(first.map(\.position).max())
            let onward = try await store.claimPushJobs(limit: 10, leaseOwner: "w", leaseDuration: 60, after: position)
            #expect(onward.count == 2 && onward.allSatisfy { $0.position > position }, "the dead claimer's expired jobs lie behind the position")
            let fromStart = try await store.claimPushJobs(limit: 10, leaseOwner: "w", leaseDuration: 60, after: nil)
            #expect(Set(fromStart.map(\.id)) == Set(dead.map(\.id)), "a claim from the start takes them up")
            #expect(fromStart.allSatisfy { $0.attempts == 2 })
        }
    }

    /// A fan-out queues more jobs than autovacuum has seen: the claim must still read the index in order, not sort the
    /// queue (on PostgreSQL its session allows the planner index scans only, whatever the statistics say).
    @Test func claimsReadTheQueueInIndexOrderRightAfterABulkEnqueue() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let order = try await store.createOrder(fixture.order("A"))
            try await store.insertRegistrations(
                (0..<5_000).map {
                    Registration(
                        deviceLibraryIdentifier: "d\($0)", pushToken: String(format: "%064x", $0), orderTypeIdentifier: fixture.orderType,
                        orderIdentifier: "A", registeredAt: Date())
                })
            _ = try await change(store, fixture, "A", from: order.version, to: [1])
            #expect(try await Self.expandFanOuts(store) == 4_000)
            let now = Date().millisecondsSince1970
            for position in [nil, PushQueuePosition(availableAt: 0, id: 10)] {
                let claim = SQLOrderStore.claimQuery(
                    leaseOwner: "w", leaseUntil: now + 60_000, now: now + 1_000, limit: 250, after: position,
                    skipLocked: store.backend.skipLockedClause)
                if TestDatabase.usesPostgres {
                    // With the statistics of before the fan-out, as no one refreshed them.
                    let plan = try await store.claimPlan(of: claim)
                    #expect(plan.contains { $0.contains("Index Scan using push_jobs_due") }, "plan: \(plan)")
                    #expect(!plan.contains { $0.contains("Sort") || $0.contains("Bitmap") }, "plan: \(plan)")
                } else {
                    let plan = try await store.plan { _ in claim }
                    #expect(plan.contains { $0.contains("push_jobs_due") }, "plan: \(plan)")
                    #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "plan: \(plan)")
                }
            }
            var position: PushQueuePosition?
            var claimed: [Int64] = []
            while case let jobs = try await store.claimPushJobs(limit: 999, leaseOwner: "w", leaseDuration: 60, after: position), !jobs.isEmpty {
                claimed += jobs.sorted { $0.position < $1.position }.map(\.id)
                position = jobs.map(\.position).max()
            }
            #expect(claimed.count == 5_000 && Set(claimed).count == 5_000 && claimed == claimed.sorted(), "every job once, in queue order")
        }
    }

    /// Delivered jobs stay in the queue's index until a vacuum. The claim must still read the index in order, which
    /// lets PostgreSQL mark their entries dead, and not take the few live jobs for a bitmap scan and a sort, which visits
    /// every deleted one again at each claim (without the claim's setting, PostgreSQL 15 plans exactly that here).
    @Test func aClaimAmongManyDeliveredJobsReadsTheQueueInIndexOrder() async throws {
        try await withStore { store, _ in try await Self.claimAmongManyDeliveredJobs(store) }
    }

    /// The claim's plan and answer after 2,000 jobs were delivered and five are live (also run behind a pooler's
    /// settings, `PostgresStoreTests`).
    static func claimAmongManyDeliveredJobs(_ store: SQLOrderStore) async throws {
        let fixture = try await Fixture.make(store)
        _ = try await store.createOrder(fixture.order("A"))
        try await store.insertRegistrations(
            (0..<2_000).map {
                Registration(
                    deviceLibraryIdentifier: "d\($0)", pushToken: String(format: "%064x", $0), orderTypeIdentifier: fixture.orderType,
                    orderIdentifier: "A", registeredAt: Date())
            })
        #expect(try await store.enqueuePushes(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A") == SQLOrderStore.pushFanOutFirstChunk)
        #expect(try await expandFanOuts(store) == 1_000)
        var delivered = 0
        while case let jobs = try await store.claimPushJobs(limit: 500, leaseOwner: "w", leaseDuration: 60), !jobs.isEmpty {
            try await store.resolvePushJobs(jobs.map { ($0, .delivered, Self.entry($0, outcome: .delivered)) })
            delivered += jobs.count
        }
        #expect(delivered == 2_000)
        let live = try await store.createOrder(fixture.order("B"))
        for index in 0..<5 {
            _ = try await store.register(
                deviceLibraryIdentifier: "b\(index)", pushToken: "b-token\(index)", orderTypeIdentifier: fixture.orderType, orderIdentifier: "B")
        }
        #expect(try await store.enqueuePushes(orderTypeIdentifier: fixture.orderType, orderIdentifier: "B") == 5)

        let now = Date().millisecondsSince1970
        let claim = SQLOrderStore.claimQuery(
            leaseOwner: "w", leaseUntil: now + 60_000, now: now + 1_000, limit: 100, after: nil, skipLocked: store.backend.skipLockedClause)
        // After the statistics autovacuum would gather: a handful of live jobs.
        let plan = try await store.claimPlan(analyzing: ["push_jobs"], of: claim)
        if store.backend is PostgresBackend {
            #expect(plan.contains { $0.contains("Index Scan using push_jobs_due") }, "plan: \(plan)")
            #expect(!plan.contains { $0.contains("Sort") || $0.contains("Bitmap") }, "plan: \(plan)")
        } else {
            #expect(plan.contains { $0.contains("push_jobs_due") } && !plan.contains { $0.contains("TEMP B-TREE") }, "plan: \(plan)")
        }
        let claimed = try await store.claimPushJobs(limit: 100, leaseOwner: "w", leaseDuration: 60)
        #expect(claimed.count == 5 && claimed.allSatisfy { $0.orderIdentifier == live.orderIdentifier })
    }

    /// Expands waiting fan-outs as the dispatcher does, `limit` tokens a transaction, until none waits (or, on
    /// PostgreSQL, the only one waiting is held by another expander); returns the tokens queued.
    static func expandFanOuts(_ store: SQLOrderStore, limit: Int = 1_000) async throws -> Int {
        var queued = 0
        while let chunk = try await store.expandPushFanOut(limit: limit) { queued += chunk }
        return queued
    }

    /// `count` registrations for `order`, tokens `prefix` + a zero-padded index (so token order is index order).
    static func register(_ store: SQLOrderStore, _ fixture: Fixture, order: String, count: Int, prefix: String = "t") async throws {
        try await store.insertRegistrations(
            (0..<count).map {
                Registration(
                    deviceLibraryIdentifier: "\(prefix)-\(order)-\($0)", pushToken: prefix + String(format: "%06d", $0),
                    orderTypeIdentifier: fixture.orderType, orderIdentifier: order, registeredAt: Date())
            })
    }

    /// Claims and delivers every due job; returns their tokens in claim order.
    static func deliverAll(_ store: SQLOrderStore) async throws -> [String] {
        var tokens: [String] = []
        while case let jobs = try await store.claimPushJobs(limit: 700, leaseOwner: "w", leaseDuration: 60), !jobs.isEmpty {
            try await store.resolvePushJobs(jobs.map { ($0, .delivered, Self.entry($0, outcome: .delivered)) })
            tokens += jobs.map(\.pushToken)
        }
        return tokens
    }

    @Test func aLargeFanOutQueuesItsFirstChunkWithTheChangeAndTheRestAfterInChunks() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let order = try await store.createOrder(fixture.order("A"))
            try await Self.register(store, fixture, order: "A", count: 2_500)
            #expect(try await store.hasQueuedPushes() == false)
            let changedAt = Date(millisecondsSince1970: Date().millisecondsSince1970)
            _ = try await change(store, fixture, "A", from: order.version, to: [1], at: changedAt)
            #expect(try await store.pushQueueDepth().pending == 2_500, "tokens still to queue count as waiting")
            #expect(try await store.hasQueuedPushes())
            let first = try await store.claimPushJobs(limit: 5_000, leaseOwner: "w", leaseDuration: 60)
            #expect(
                first.map(\.pushToken).sorted() == (0..<1_000).map { "t" + String(format: "%06d", $0) }, "the first 1,000 tokens, with the change")
            try await store.resolvePushJobs(first.map { ($0, .delivered, Self.entry($0, outcome: .delivered)) })
            #expect(try await store.pushQueueDepth().pending == 1_500)
            #expect(try await store.hasQueuedPushes(), "no job pending, but the fan-out has tokens to queue")

            #expect(try await store.expandPushFanOut(limit: 1_000) == 1_000)
            #expect(try await store.expandPushFanOut(limit: 1_000) == 500)
            #expect(try await store.expandPushFanOut(limit: 1_000) == nil, "the fan-out is done")
            let rest = try await store.claimPushJobs(limit: 5_000, leaseOwner: "w", leaseDuration: 60)
            #expect(rest.map(\.pushToken).sorted() == (1_000..<2_500).map { "t" + String(format: "%06d", $0) })
            #expect(
                rest.allSatisfy { $0.generation == 0 && abs($0.enqueuedAt.timeIntervalSince(first[0].enqueuedAt)) < 0.001 },
                "queued once, at the change's time")
            try await store.resolvePushJobs(rest.map { ($0, .delivered, Self.entry($0, outcome: .delivered)) })
            #expect(try await store.pushQueueDepth().pending == 0)
            #expect(try await store.hasQueuedPushes() == false)
        }
    }

    @Test func aChangeWhileAFanOutIsExpandedReachesEveryTokenOnceMore() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            var order = try await store.createOrder(fixture.order("A"))
            try await Self.register(store, fixture, order: "A", count: 2_500)
            order = try await change(store, fixture, "A", from: order.version, to: [1])
            #expect(try await store.expandPushFanOut(limit: 1_000) == 1_000)
            #expect(try await Self.deliverAll(store).count == 2_000, "tokens up to 1,999 heard of the first change")

            // The second change starts over: its first chunk, then every later token, those already past the first
            // change's expansion included.
            _ = try await change(store, fixture, "A", from: order.version, to: [2])
            #expect(try await Self.expandFanOuts(store) == 1_500)
            let second = try await Self.deliverAll(store)
            #expect(second.count == 2_500 && Set(second).count == 2_500, "every token once for the second change")
            #expect(try await store.pushQueueDepth().pending == 0)
        }
    }

    /// A change that reaches every token in its own transaction ends an earlier change's fan-out: what was left of it
    /// would otherwise push the same tokens the same version again.
    @Test func aChangeThatQueuesEveryTokenEndsAnEarlierFanOut() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            var order = try await store.createOrder(fixture.order("A"))
            try await Self.register(store, fixture, order: "A", count: 1_200)
            order = try await change(store, fixture, "A", from: order.version, to: [1])
            #expect(try await Self.deliverAll(store).count == 1_000, "the first chunk; 200 tokens left to queue")
            for index in 0..<300 {
                #expect(
                    try await store.unregister(deviceLibraryIdentifier: "t-A-\(index)", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A"))
            }

            _ = try await change(store, fixture, "A", from: order.version, to: [2])
            let second = try await Self.deliverAll(store)
            #expect(second.sorted() == (300..<1_200).map { "t" + String(format: "%06d", $0) }, "all 900 tokens, with the change")
            #expect(try await store.expandPushFanOut(limit: 1_000) == nil, "nothing left of the first change's fan-out")
            #expect(try await Self.deliverAll(store).isEmpty)
            #expect(try await store.pushQueueDepth().pending == 0)
        }
    }

    @Test func aBatchOfOrdersFansOutAsOneChunkThenEachOrderSeparately() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            for id in ["A", "B"] {
                _ = try await store.createOrder(fixture.order(id))
                try await Self.register(store, fixture, order: id, count: 700, prefix: id)
            }
            // A device registered for both orders gets one job for them.
            _ = try await store.register(
                deviceLibraryIdentifier: "both", pushToken: "A000001", orderTypeIdentifier: fixture.orderType, orderIdentifier: "B")
            let queued = try await store.write("enqueue two orders") { db in
                try await store.enqueuePushes(
                    db, orders: ["A", "B"].map { OrderKey(orderTypeIdentifier: fixture.orderType, orderIdentifier: $0) },
                    now: Date().millisecondsSince1970)
            }
            #expect(queued == 1_000)
            #expect(try await Self.expandFanOuts(store) == 400)
            let tokens = try await Self.deliverAll(store)
            #expect(tokens.count == 1_400 && Set(tokens).count == 1_400, "each token once")
        }
    }

    /// Expanders of several instances share the work: a fan-out's chunk is never queued twice, whichever runs it.
    @Test func concurrentExpandersQueueEachTokenOnce() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            for id in ["A", "B", "C"] {
                let order = try await store.createOrder(fixture.order(id))
                try await Self.register(store, fixture, order: id, count: 3_000, prefix: id)
                _ = try await change(store, fixture, id, from: order.version, to: [1])
            }
            let queued = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await Self.expandFanOuts(store, limit: 250) }
                }
                return try await group.reduce(0, +)
            }
            // One expander may give up on a fan-out another holds (SKIP LOCKED) and leave the rest to its next wake-up.
            let rest = try await Self.expandFanOuts(store)
            #expect(queued + rest == 6_000)
            let jobs = try await store.claimPushJobs(limit: 10_000, leaseOwner: "w", leaseDuration: 60)
            #expect(jobs.count == 9_000 && jobs.allSatisfy { $0.generation == 0 }, "every token queued once")
        }
    }

    /// A chunk reads the next tokens of one order from the registrations index in order and stops at its limit, however
    /// many registrations the order has.
    @Test func anExpansionReadsTheRegistrationsIndexInTokenOrder() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            for (id, count) in [("A", 3_000), ("B", 20_000)] {
                _ = try await store.createOrder(fixture.order(id))
                try await Self.register(store, fixture, order: id, count: count, prefix: id)
            }
            let insert = SQLOrderStore.pushJobsInsert(
                type: fixture.orderType, orders: ["A"], after: "A000999", limit: 1_000, enqueuedAt: 0, now: 0)
            let plan = try await store.plan(analyze: true) { _ in insert }
            #expect(plan.contains { $0.contains("registrations_order") }, "plan: \(plan)")
            #expect(!plan.contains { $0.contains("Sort") || $0.contains("TEMP B-TREE") }, "plan: \(plan)")
        }
    }
}
