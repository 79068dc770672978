import Foundation
import SQLKit
import TestSupport
import Testing

@testable import OrderPersistence

/// What only PostgreSQL does: URLs, several stores (instances) on one database, lost connections.
/// The rest of the store's behaviour is covered by every other suite, which `scripts/test` also runs on PostgreSQL.
@Suite struct PostgresStoreTests {
    @Test func databaseURLsAreReadWithEveryOption() throws {
        let configuration = try PostgresStoreConfiguration(
            url:
                "postgresql://app:s3cret@db.internal:6543/orders?sslmode=require&schema=tenant_a&pool=25&statement_timeout=2500&connect_timeout=3&prepared_statements=off"
        )
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "app")
        #expect(configuration.password == "s3cret")
        #expect(configuration.database == "orders")
        #expect(configuration.tls == .require)
        #expect(configuration.schema == "tenant_a")
        #expect(configuration.poolSize == 25)
        #expect(configuration.statementTimeoutMilliseconds == 2500)
        #expect(configuration.connectTimeout == .seconds(3))
        #expect(!configuration.preparesStatements)
        #expect(!configuration.description.contains("s3cret"), "the password never reaches logs")

        let defaults = try PostgresStoreConfiguration(url: "postgres://app@localhost/orders")
        #expect(defaults.port == 5432 && defaults.schema == "public" && defaults.poolSize == 10 && defaults.preparesStatements)
    }

    @Test(arguments: [
        ("mysql://app@localhost/orders", "is not a postgres:// URL"),
        ("postgres://localhost/orders", "user name is missing"),
        ("postgres://app@/orders", "host is missing"),
        ("postgres://app@localhost", "database name"),
        ("postgres://app@localhost/orders?sslmode=maybe", "sslmode \"maybe\""),
        ("postgres://app@localhost/orders?schema=Robert');DROP", "schema"),
        ("postgres://app@localhost/orders?pool=0", "pool \"0\""),
        ("postgres://app@localhost/orders?statement_timeout=soon", "statement_timeout"),
        ("postgres://app@localhost/orders?prepared_statements=sometimes", "prepared_statements \"sometimes\" must be on or off"),
        ("postgres://app@localhost/orders?colour=blue", "unknown parameter \"colour\""),
    ])
    func badDatabaseURLsSayWhichPartIsWrong(url: String, expected: String) {
        #expect {
            try PostgresStoreConfiguration(url: url)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func l5_tlsIsRequiredUnlessTheURLSaysOtherwise() throws {
        #expect(try PostgresStoreConfiguration(url: "postgres://app@localhost/orders").tls == .require, "no silent plain-text fallback")
        #expect(try PostgresStoreConfiguration(url: "postgres://app@localhost/orders?sslmode=prefer").tls == .prefer)
        #expect(try PostgresStoreConfiguration(url: "postgres://app@localhost/orders?sslmode=disable").tls == .disable)
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func l5_aServerWithoutTLSIsRefusedUnlessTheURLDisablesTLS() async throws {
        // The test server has no TLS: its URL says sslmode=disable. Without that, the default must refuse it.
        let url = try TestDatabase.freshPostgresURL()
        let withoutMode = url.replacingOccurrences(of: "sslmode=disable&", with: "").replacingOccurrences(of: "?sslmode=disable", with: "?")
        #expect(!withoutMode.contains("sslmode"))
        await #expect(throws: OrderStoreError.self) {
            try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: withoutMode), masterKey: testMasterKey)
        }
        try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey).shutdown()
    }

    /// Behind a pooler (`prepared_statements=off`) a session's settings do not last, so a claim changes the planner's
    /// settings in its own transaction instead of on the claim connections' sessions; either way it reads the queue's
    /// index in order.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aClaimBehindAPoolerStillReadsTheQueueInIndexOrder() async throws {
        let store = try await SQLOrderStore.postgres(
            PostgresStoreConfiguration(url: try TestDatabase.freshPostgresURL() + "&prepared_statements=off"), masterKey: testMasterKey)
        let backend = try #require(store.backend as? PostgresBackend)
        #expect(backend.claimPool == nil)
        do {
            try await OutboxStoreTests.claimAmongManyDeliveredJobs(store)
            try await store.shutdown()
        } catch {
            try? await store.shutdown()
            throw error
        }
    }

    /// A throwaway schema (a benchmark's) is dropped with its tables and only it; `public` never is.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aThrowawaySchemaIsDroppedAndOnlyIt() async throws {
        let keptConfiguration = try PostgresStoreConfiguration(url: try TestDatabase.freshPostgresURL())
        let kept = try await SQLOrderStore.postgres(keptConfiguration, masterKey: testMasterKey)
        let throwaway = try PostgresStoreConfiguration(url: try TestDatabase.freshPostgresURL())
        try await SQLOrderStore.postgres(throwaway, masterKey: testMasterKey).shutdown()
        func schemas() async throws -> Set<String> {
            Set(
                try await kept.read("list schemas") { db in
                    try await db.raw("SELECT nspname FROM pg_namespace").all(decodingColumn: "nspname", as: String.self)
                })
        }
        #expect(try await schemas().contains(throwaway.schema))
        try await SQLOrderStore.dropPostgresSchema(throwaway)
        let after = try await schemas()
        #expect(!after.contains(throwaway.schema) && after.contains(keptConfiguration.schema))
        // The other store's tables are untouched.
        #expect(try await kept.orderTypes(merchantID: "nobody").isEmpty)
        var publicSchema = throwaway
        publicSchema.schema = "public"
        await #expect(throws: OrderStoreError.self) { try await SQLOrderStore.dropPostgresSchema(publicSchema) }
        try await kept.shutdown()
    }

    @Test func l6_aPasswordInAnUnparsableURLIsRedacted() {
        #expect(PostgresStoreConfiguration.redacted("postgress://admin:hunter2@db/x") == "postgress://admin:***@db/x")
        #expect(!PostgresStoreConfiguration.redacted("postgres://admin:hun ter2@db /x").contains("hun ter2"), "not even in a URL with spaces")
        #expect(PostgresStoreConfiguration.redacted("sqlite:///var/lib/ordertrack.sqlite") == "sqlite:///var/lib/ordertrack.sqlite")
    }

    @Test func aPasswordInABadURLIsNotEchoed() {
        #expect {
            try PostgresStoreConfiguration(url: "mysql://app:hunter2@localhost/orders")
        } throws: { error in
            !"\(error)".contains("hunter2")
        }
    }

    @Test func anUnreachableServerFailsPromptlyWithItsAddress() async throws {
        let started = ContinuousClock.now
        do {
            _ = try await SQLOrderStore.postgres(
                PostgresStoreConfiguration(url: "postgres://app:pw@127.0.0.1:1/orders?sslmode=disable"), masterKey: testMasterKey)
            Issue.record("connecting to a closed port must fail")
        } catch OrderStoreError.openFailed(let path, let reason) {
            #expect(path.contains("127.0.0.1:1/orders"))
            #expect(reason.contains("cannot connect"), "\(reason)")
            #expect(!path.contains("pw"))
        }
        // One refused connection, no retries and no connect timeout: well under a second alone, but the parallel
        // suite's CPU-bound tests can hold both cores' cooperative threads for 20 s at its start.
        #expect(ContinuousClock.now - started < .seconds(45))
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func instancesStartingTogetherMigrateOnce() async throws {
        let url = try TestDatabase.freshPostgresURL()
        let stores = try await withThrowingTaskGroup(of: SQLOrderStore.self) { group in
            for _ in 0..<4 {
                group.addTask { try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let versions = try await stores[0].read("list migrations") { db in
            try await db.select().column("version").from("schema_migrations").orderBy("version").all(decodingColumn: "version", as: Int.self)
        }
        #expect(versions == Migrations.all.map(\.version))
        for store in stores {
            #expect(try await store.databaseSchemaVersion() == SQLOrderStore.schemaVersion)
            try await store.shutdown()
        }
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aTransactionWhoseSessionEndsFailsAtOnceAndTheStoreGoesOn() async throws {
        // PostgreSQL restarted under a write: the session ends mid-transaction. A ROLLBACK sent on the closed connection
        // is never answered by PostgresNIO, so the write waited forever, and every order update queued behind it in the
        // group commit with it (found by the soak's PostgreSQL restart). Here the transaction's work fails once the
        // connection has closed.
        struct WorkFailed: Error {}
        let answer = try await writeAfterItsSessionEnds { _ in throw WorkFailed() }
        #expect(answer?.contains("WorkFailed") == true, "\(answer ?? "the write still waited 20 s after its session ended")")
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aStatementSentOnAConnectionThatClosedFailsAtOnce() async throws {
        // The connection closes between the lease (which checks it is open) and a statement: PostgresNIO never answers
        // a statement written to a closed connection, so without a guard the statement, its transaction and the group
        // commit behind it wait forever.
        let answer = try await writeAfterItsSessionEnds { db in try await db.raw("SELECT 1").run() }
        #expect(answer != nil && answer != "committed", "\(answer ?? "the statement still waited 20 s after its connection closed")")
    }

    /// Runs a write whose backend ends its own session and, once the connection has closed, does `work`; returns how
    /// the write ended ("committed" or its error), or nil when it had not ended 20 s later. Afterwards the store must
    /// work on: the pool gave the dead connection up.
    private func writeAfterItsSessionEnds(_ work: @escaping @Sendable (any SQLDatabase) async throws -> Void) async throws -> String? {
        let url = try TestDatabase.freshPostgresURL()
        let store = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        let answer = Shared<String?>(nil)
        let writer = Task {
            do {
                try await store.write("end the session") { db in
                    _ = try? await db.raw("SELECT pg_terminate_backend(pg_backend_pid())").run()
                    try await Task.sleep(for: .milliseconds(300))
                    try await work(db)
                }
                answer.set("committed")
            } catch {
                answer.set("\(error)")
            }
        }
        guard try await Poll.until(timeout: .seconds(20), { answer.value != nil }) else {
            return nil // the writer cannot be ended; the store is left to the process
        }
        await writer.value
        let merchant = try await store.createMerchant(name: "After the session ended")
        #expect(try await store.merchant(id: merchant.id)?.name == "After the session ended")
        try await store.shutdown()
        return answer.value
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func twoInstancesClaimingAtOnceNeverShareAJob() async throws {
        let url = try TestDatabase.freshPostgresURL()
        let first = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        let second = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        let fixture = try await Fixture.make(first)
        let order = try await first.createOrder(fixture.order("A"))
        let devices = 3000
        try await first.insertRegistrations(
            (0..<devices).map {
                Registration(
                    deviceLibraryIdentifier: "d\($0)", pushToken: "token\($0)", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A",
                    registeredAt: Date())
            })
        _ = try await second.updateOrder(
            type: fixture.orderType, id: "A", expectedVersion: order.version, document: [1], status: nil, orderNumber: nil, updatedAt: Date())
        // Both instances expand the fan-out's rest at once: one skips the chunk the other holds and comes back for more.
        async let expandedByA = OutboxStoreTests.expandFanOuts(first, limit: 100)
        async let expandedByB = OutboxStoreTests.expandFanOuts(second, limit: 100)
        let expanded = try await expandedByA + expandedByB + OutboxStoreTests.expandFanOuts(first, limit: 100)
        #expect(expanded == devices - SQLOrderStore.pushFanOutFirstChunk)

        @Sendable func drain(_ store: SQLOrderStore, owner: String) async throws -> [Int64] {
            var claimed: [Int64] = []
            while true {
                let jobs = try await store.claimPushJobs(limit: 50, leaseOwner: owner, leaseDuration: 60)
                if jobs.isEmpty { return claimed }
                claimed += jobs.map(\.id)
            }
        }
        async let a = drain(first, owner: "instance-a")
        async let b = drain(second, owner: "instance-b")
        let (byA, byB) = try await (a, b)
        #expect(byA.count + byB.count == devices)
        #expect(Set(byA).isDisjoint(with: byB), "a job was claimed by both instances")
        #expect(Set(byA + byB).count == devices)
        #expect(!byA.isEmpty && !byB.isEmpty, "both instances took part (a: \(byA.count), b: \(byB.count))")
        try await first.shutdown()
        try await second.shutdown()
    }

    /// Orders of one merchant created at once (checkout at payment time) do not take turns: a new row's provisional
    /// creation sequence is its own, so another transaction's uncommitted new order does not hold up this one's
    /// `INSERT` on the unique `(merchant_id, created_sequence)` until it commits. Both sequences end up real and apart.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func anUncommittedNewOrderDoesNotHoldUpAnotherOfItsMerchant() async throws {
        let url = try TestDatabase.freshPostgresURL()
        let store = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        let fixture = try await Fixture.make(store)
        let inserted = Shared(false)
        let secondCreated = Shared(false)
        let holder = Task {
            try await store.write("hold a new order's row uncommitted") { db in
                #expect(try await SQLOrderStore.insertOrderRow(db, fixture.order("A")))
                inserted.set(true)
                // Until the other create has committed (it never does while this waits, with a shared placeholder).
                _ = try await Poll.until(timeout: .seconds(15)) { secondCreated.value }
                return try await store.assignChangeSequences(db, [fixture.order("A").key], created: true)
            }
        }
        #expect(try await Poll.until(timeout: .seconds(15)) { inserted.value })
        try await store.createOrder(fixture.order("B"))
        let firstStillOpen = try await store.order(type: fixture.orderType, id: "A") == nil
        secondCreated.set(true)
        #expect(firstStillOpen, "B was created only once A's transaction had ended")
        _ = try await holder.value
        let sequences = try await store.read("read creation sequences") { db in
            try await db.raw("SELECT created_sequence FROM orders ORDER BY order_identifier").all(decodingColumn: "created_sequence", as: Int64.self)
        }
        #expect(sequences.count == 2 && sequences.allSatisfy { $0 > 0 } && Set(sequences).count == 2, "\(sequences)")
        try await store.shutdown()
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aConnectionKilledByTheServerIsReplacedWithoutAnError() async throws {
        let url = try TestDatabase.freshPostgresURL()
        let store = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url + "&pool=1"), masterKey: testMasterKey)
        let admin = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        defer {
            Task { [store, admin] in
                try? await store.shutdown(); try? await admin.shutdown()
            }
        }
        let fixture = try await Fixture.make(store)
        func backendPID() async throws -> Int {
            try await store.read("read backend pid") { db in
                try #require(try await db.raw("SELECT pg_backend_pid() AS pid").first(decodingColumn: "pid", as: Int.self))
            }
        }
        let before = try await backendPID()
        try await admin.read("terminate a backend") { db in
            try await db.raw("SELECT pg_terminate_backend(CAST(\(bind: before) AS integer))").run()
        }
        // The next write runs on a new connection, as if nothing happened.
        try await store.createOrder(fixture.order("A"))
        #expect(try await store.order(type: fixture.orderType, id: "A") != nil)
        #expect(try await backendPID() != before)
    }

    /// Registration changes are not announced (migration 24 removed migration 12's trigger): lists are read from the
    /// database, and a NOTIFY would only lengthen each registration's commit. The next announcement after other
    /// instances' registrations is an order's.
    /// Each event is awaited as it arrives; the time limit ends the test if one never does.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)), .timeLimit(.minutes(1)))
    func registrationChangesAreNotAnnounced() async throws {
        let url = try TestDatabase.freshPostgresURL()
        let here = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        let other = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        let fixture = try await Fixture.make(other)
        try await other.createOrder(fixture.order("A"))
        let (events, announced) = AsyncStream.makeStream(of: StoreChangeEvent.self)
        let follower = Task { try await here.followChanges { event in announced.yield(event) } }
        var heard = events.makeAsyncIterator()
        #expect(await heard.next() == .following)

        _ = try await other.register(
            deviceLibraryIdentifier: "device-1", pushToken: "t1", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
        _ = try await other.unregister(deviceLibraryIdentifier: "device-1", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
        try await other.createOrder(fixture.order("B"))
        #expect(await heard.next() == .order(orderTypeIdentifier: fixture.orderType, orderIdentifier: "B"))
        follower.cancel()
        _ = try? await follower.value
        try await here.shutdown()
        try await other.shutdown()
    }
}
