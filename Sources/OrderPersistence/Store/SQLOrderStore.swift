import BoundedCache
import Foundation
import Logging
import SQLKit
import ServiceLifecycle
import Synchronization

/// The ``OrderStore`` over SQLKit: the same queries serve SQLite and PostgreSQL, each behind an internal backend.
public final class SQLOrderStore: OrderStore {
    let backend: any SQLStoreBackend
    let logger: Logger
    /// The time every row's timestamps, claims and leases are measured by: the wall clock, or a test's clock.
    let clock: @Sendable () -> Date
    /// Seals and opens the secret columns; replaced by ``rotateMasterKey(to:)``.
    let sealerBox: Mutex<SecretSealer>

    var sealer: SecretSealer { sealerBox.withLock { $0 } }
    /// Carrier events that webhooks deliver at the same time, stored in one transaction.
    let carrierInbox: GroupCommit<IncomingCarrierEvent, CarrierEventReceipt>
    /// Order updates made at the same time, written in one transaction.
    let orderUpdates: GroupCommit<OrderUpdate, OrderRecord>
    /// Signed packages built at the same time, cached in one transaction.
    let packageWrites: GroupCommit<PackageWrite, Void>
    /// Told after each commit that appended events while an enabled webhook endpoint may exist
    /// (``WebhookStore/observeCommittedEvents(_:)``).
    let eventObservers = Mutex<[@Sendable () -> Void]>([])
    /// Told after each commit that left a push fan-out to expand (``observePushFanOuts(_:)``).
    let fanOutObservers = Mutex<[@Sendable () -> Void]>([])
    let webhookEndpoints = WebhookEndpointPresence()
    /// Order type secrets as last opened, by their sealed texts: every signature and push reads its order type, and
    /// opening and decoding its columns cost more than the read (1.4 % of the soak's server). Equal sealed texts
    /// under the same master key open to equal values; a rotation empties it.
    let openedOrderTypes = Mutex(LRUCache<OpenedOrderTypeKey, OpenedOrderType>(capacity: 64))

    init(backend: any SQLStoreBackend, logger: Logger, now: @escaping @Sendable () -> Date, sealer: SecretSealer) {
        self.backend = backend
        self.logger = logger
        self.clock = now
        self.sealerBox = Mutex(sealer)
        // The inbox and the package cache write each batch with one statement outside a transaction, so another
        // batch in flight saves no wait worth having and splits the next batch: on PostgreSQL a statement's round trip
        // costs the instance more CPU than its rows (`bench carrier --postgres`: 1,896 inbox statements for 10,000
        // events instead of 9,222; docs/performance.md, carrier tracking).
        carrierInbox = GroupCommit(maximumBatch: 128, concurrentBatches: 1)
        orderUpdates = GroupCommit(maximumBatch: 32, concurrentBatches: backend.concurrentWriters)
        packageWrites = GroupCommit(maximumBatch: 32, concurrentBatches: 1)
    }

    /// Opens (creating if needed) an SQLite database file in WAL mode and migrates it to the current schema.
    ///
    /// - Parameters:
    ///   - path: Database file path; its directory must exist. The file and its `-wal` and `-shm` companions are
    ///     created readable by the owner only (0600), whatever the umask.
    ///   - masterKey: Seals the private keys and passwords the store keeps (see ``MasterKey``).
    ///   - readerCount: Connections for concurrent reads, besides the one writer connection.
    ///   - logger: The logger handed to the database driver's connections.
    ///   - now: The clock for timestamps, claims and leases (the wall clock unless a test controls time).
    ///   - clock: The clock the waits for a connection run out on (the continuous clock unless a test controls time).
    /// - Throws: ``OrderStoreError/openFailed(path:reason:)``, ``OrderStoreError/schemaTooNew(databaseVersion:knownVersion:)``,
    ///   ``OrderStoreError/migrationFailed(version:name:reason:)``, ``OrderStoreError/wrongMasterKey``.
    public static func sqlite(
        path: String, masterKey: MasterKey, readerCount: Int = 4, logger: Logger = Logger(label: "ordertrack.store"),
        now: @escaping @Sendable () -> Date = Date.init, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> SQLOrderStore {
        guard readerCount >= 1 else {
            throw OrderStoreError.invalidArgument(name: "readerCount", reason: "\(readerCount) is not at least 1")
        }
        let backend = try await SQLiteBackend.open(path: path, readerCount: readerCount, logger: logger, clock: clock)
        return try await migrated(backend: backend, masterKey: masterKey, logger: logger, now: now)
    }

    /// Opens a private in-memory SQLite database (lost on shutdown, with the random master key that seals its
    /// secrets), migrated to the current schema; `now` as in ``sqlite(path:masterKey:readerCount:logger:now:clock:)``.
    public static func inMemory(logger: Logger = Logger(label: "ordertrack.store"), now: @escaping @Sendable () -> Date = Date.init) async throws
        -> SQLOrderStore
    {
        let backend = try await SQLiteBackend.openInMemory(logger: logger, clock: ContinuousClock())
        return try await migrated(backend: backend, masterKey: .generate(), logger: logger, now: now)
    }

    /// Connects to PostgreSQL (creating the configured schema if missing) and migrates it to the current schema.
    /// Several instances may start at once: they take turns at migrating. `masterKey`, `now` and `clock` as in
    /// ``sqlite(path:masterKey:readerCount:logger:now:clock:)``; `clock` also paces the retries and the change
    /// listener's probes and reconnections.
    ///
    /// - Throws: ``OrderStoreError/openFailed(path:reason:)`` when the database cannot be reached or refuses the login,
    ///   ``OrderStoreError/schemaTooNew(databaseVersion:knownVersion:)``, ``OrderStoreError/migrationFailed(version:name:reason:)``,
    ///   ``OrderStoreError/wrongMasterKey``.
    public static func postgres(
        _ configuration: PostgresStoreConfiguration, masterKey: MasterKey, logger: Logger = Logger(label: "ordertrack.store"),
        now: @escaping @Sendable () -> Date = Date.init, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> SQLOrderStore {
        let backend = try await PostgresBackend.open(configuration, logger: logger, clock: clock)
        return try await migrated(backend: backend, masterKey: masterKey, logger: logger, now: now)
    }

    /// Drops the configured schema with everything in it, for a throwaway schema (a benchmark's); no store may be open
    /// on it. Refuses `public`, which is never a throwaway.
    ///
    /// - Throws: ``OrderStoreError/invalidArgument(name:reason:)`` for `public`, ``OrderStoreError/openFailed(path:reason:)``
    ///   when the database cannot be reached, ``OrderStoreError/database(operation:reason:)`` when the drop fails.
    public static func dropPostgresSchema(_ configuration: PostgresStoreConfiguration, logger: Logger = Logger(label: "ordertrack.store"))
        async throws
    {
        guard configuration.schema != "public" else {
            throw OrderStoreError.invalidArgument(name: "schema", reason: "public is a deployment's schema, never dropped")
        }
        let backend = try await PostgresBackend.open(configuration, logger: logger, clock: ContinuousClock())
        do {
            try await backend.withWriteTransaction(preparing: false) { db in
                try await db.raw("DROP SCHEMA \(ident: configuration.schema) CASCADE").run()
            }
        } catch {
            try? await backend.shutdown()
            throw OrderStoreError.database(operation: "drop schema \(configuration.schema)", reason: backend.describe(error).message)
        }
        try await backend.shutdown()
    }

    private static func migrated(backend: any SQLStoreBackend, masterKey: MasterKey, logger: Logger, now: @escaping @Sendable () -> Date)
        async throws -> SQLOrderStore
    {
        let sealer = SecretSealer(masterKey: masterKey)
        do {
            try await Migrations.migrate(backend, now: now)
            try await prepareSecrets(backend, sealer: sealer, now: now())
        } catch {
            try? await backend.shutdown()
            if let error = error as? OrderStoreError { throw error }
            throw OrderStoreError.database(operation: "migrate the schema", reason: backend.describe(error).message)
        }
        return SQLOrderStore(backend: backend, logger: logger, now: now, sealer: sealer)
    }

    /// The schema version this build creates and understands.
    public static var schemaVersion: Int { Migrations.latestVersion }

    /// The schema version the database is at (after opening, ``schemaVersion``).
    public func databaseSchemaVersion() async throws -> Int {
        try await read("read the schema version") { try await Migrations.currentVersion($0) }
    }

    /// Reports committed changes of orders and order types (PostgreSQL `LISTEN`; SQLite: only
    /// ``StoreChangeEvent/following``), until the task is cancelled.
    public func followChanges(_ report: @escaping @Sendable (StoreChangeEvent) async -> Void) async throws {
        try await backend.followChanges(report)
    }

    /// Closes the connections and the backend's threads; further calls throw ``OrderStoreError/storeClosed``.
    public func shutdown() async throws {
        do {
            try await backend.shutdown()
        } catch {
            throw OrderStoreError.database(operation: "shut down the store", reason: backend.describe(error).message)
        }
    }

    /// Keeps the store open until the service group shuts down gracefully, then closes it. The group stops its
    /// services in reverse order: listed first, the store closes after everything that uses it, so a dispatcher
    /// draining its last pushes still records them. A later ``shutdown()`` does nothing.
    ///
    /// Cancelled, it returns without closing: cancellation stops every service at once, and closing then would fail
    /// their last writes. Whoever opened the store closes it once the group has finished.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return
        }
        try await shutdown()
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction; errors other than ``OrderStoreError`` get the operation as context.
    func write<T: Sendable>(_ operation: @autoclosure () -> String, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            return try await afterCommitTellingObservers { try await backend.withWriteTransaction(body) }
        } catch {
            throw wrap(error, operation: operation())
        }
    }

    /// Runs a write that may append events (``appendEvents(_:_:at:)`` marks it) or leave a push fan-out to expand, and
    /// tells their observers once it has committed: telling them before, a follower could read before the rows are
    /// visible. A webhook endpoint it added or enabled counts from the commit too: a look for endpoints before it would
    /// find none.
    private func afterCommitTellingObservers<T: Sendable>(_ transaction: () async throws -> T) async throws -> T {
        let mark = CommitMark()
        let value = try await CommitMark.$current.withValue(mark) { try await transaction() }
        if mark.enabledWebhookEndpoint.load(ordering: .relaxed) { webhookEndpoints.added() }
        if mark.appended.load(ordering: .relaxed), webhookEndpoints.mayExist {
            for observer in eventObservers.withLock({ $0 }) { observer() }
        }
        if mark.queuedFanOut.load(ordering: .relaxed) {
            for observer in fanOutObservers.withLock({ $0 }) { observer() }
        }
        return value
    }

    /// Runs `body`, one statement that commits by itself (``SQLStoreBackend/withSingleStatementWrite(_:)``); errors
    /// other than ``OrderStoreError`` get the operation as context.
    func writeStatement<T: Sendable>(_ operation: @autoclosure () -> String, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            return try await afterCommitTellingObservers { try await backend.withSingleStatementWrite(body) }
        } catch {
            throw wrap(error, operation: operation())
        }
    }

    /// Runs `body`, a queue's claim (push jobs, carrier events), as one statement that commits by itself and is planned
    /// with index scans only (``SQLStoreBackend/withQueueClaim(_:)``).
    func writeClaim<T: Sendable>(_ operation: @autoclosure () -> String, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            return try await afterCommitTellingObservers { try await backend.withQueueClaim(body) }
        } catch {
            throw wrap(error, operation: operation())
        }
    }

    /// Runs `body` on a reader connection; errors other than ``OrderStoreError`` get the operation as context. `extent`
    /// is ``ReadExtent/scan`` for a count or aggregate over many rows.
    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, extent: ReadExtent = .rows, _ body: (any SQLDatabase) async throws -> T
    ) async throws -> T {
        do {
            return try await backend.withReader(extent, body)
        } catch {
            throw wrap(error, operation: operation())
        }
    }

    /// Runs `body` in one write transaction with raw access to the database, for tools outside this module that
    /// generate rows inside it (the benchmarks' seeding writes a million rows in seconds so). It is the store's only
    /// raw door, kept to what such a writer needs; errors come back as ``OrderStoreError``, naming `operation`.
    public func withRawWriteTransaction<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: (RawWriteTransaction) async throws -> T
    ) async throws -> T {
        let now = self.now().millisecondsSince1970
        return try await write(operation()) { db in
            try await body(RawWriteTransaction(store: self, database: db, nowMilliseconds: now))
        }
    }

    func wrap(_ error: any Error, operation: String) -> OrderStoreError {
        if let error = error as? OrderStoreError { return error }
        let description = backend.describe(error)
        switch description.kind {
        case .foreignKeyViolation:
            return .database(operation: operation, reason: "a referenced row does not exist (\(description.message))")
        case .uniqueViolation:
            return .database(operation: operation, reason: "a row with the same key already exists (\(description.message))")
        case .unavailable:
            return .unavailable(operation: operation, reason: description.message)
        case .busy:
            return .busy(operation: operation, reason: description.message)
        case .storageFull:
            return .storageFull(operation: operation, reason: description.message)
        case .transient, .other:
            return .database(operation: operation, reason: description.message)
        }
    }

    /// Takes the next change tags inside the caller's write transaction and returns the last one.
    ///
    /// Why a locked counter row and not a database SEQUENCE: a PostgreSQL sequence hands out numbers
    /// outside transaction order, so a device could read tag 6 before the transaction holding 5 commits
    /// and miss 5 forever. The UPDATE locks the row until commit, so tags become visible in increasing order.
    func nextChangeSequence(_ db: any SQLDatabase, count: Int64 = 1) async throws -> Int64 {
        let value = try await db.update("counters")
            .set("value", to: SQLBinaryExpression(SQLColumn("value"), .add, SQLBind(count)))
            .where("name", .equal, "change")
            .returning("value")
            .first(decodingColumn: "value", as: Int64.self)
        guard let value else {
            throw OrderStoreError.corruptRecord(table: "counters", reason: "the 'change' counter row is missing")
        }
        return value
    }

    /// Takes the next change tags for `orders` (which this transaction wrote) and gives them to the orders' rows, in
    /// the order given (an order given twice gets one tag), as their creation sequence too when `created`; returns
    /// each order's tag. With `rows` (one for each of `orders`), the same statement writes their new document,
    /// status, number, update time, version and token: an order update's one write of its row.
    ///
    /// Call it late in the transaction: the counter's row stays locked until the commit and every write of an order
    /// waits for it, so what runs after it limits how many orders the database changes per second (on PostgreSQL,
    /// taken first, it was held for eight more round trips). Take it before the events, as every transaction does, so
    /// no two wait on each other crosswise: `chaining` takes their writes (``appendingEvents(_:_:at:insights:_:)``),
    /// which on PostgreSQL join the counter's statement, so the counter is held for that statement and the commit.
    func assignChangeSequences(
        _ db: any SQLDatabase, _ orders: [OrderKey], created: Bool = false, rows: [OrderKey: OrderRecord]? = nil,
        chaining writes: [SQLQueryString] = []
    ) async throws -> [OrderKey: Int64] {
        var seen = Set<OrderKey>()
        let keys = orders.filter { seen.insert($0).inserted }
        guard !keys.isEmpty else {
            try await Self.runChained(db, writes)
            return [:]
        }
        let count = Int64(keys.count)
        /// The orders as `v`: their keys, `third` (a tag or an offset) and, with `rows`, what their row gets.
        func table(_ keys: [OrderKey], _ third: [Int64]) -> SQLBoundRows {
            var columns: [SQLBoundColumn] = [.text(keys.map(\.orderTypeIdentifier)), .text(keys.map(\.orderIdentifier)), .integer(third)]
            if let rows {
                let records = keys.map { key in
                    guard let record = rows[key] else { preconditionFailure("a row for every order, or none") }
                    return record
                }
                columns += [
                    .blob(records.map { Data($0.document) }), .text(records.map(\.status)), .text(records.map(\.orderNumber)),
                    .integer(records.map { $0.updatedAt.millisecondsSince1970 }), .integer(records.map { Int64($0.version) }),
                    .text(records.map(\.authenticationToken)),
                ]
            }
            return SQLBoundRows(columns)
        }
        func assignments(_ sequence: SQLQueryString) -> SQLQueryString {
            var assignments: SQLQueryString = "change_sequence = \(sequence)"
            if created { assignments = assignments + ", created_sequence = \(sequence)" }
            if rows != nil {
                assignments =
                    assignments + """
                        , document = v.column4, status = v.column5, order_number = v.column6, updated_at = v.column7, version = v.column8, \
                        authentication_token = v.column9
                        """
            }
            return assignments
        }
        if db.chainsWrites, keys.count <= Self.statementChunk {
            // The counter, the orders and the chained writes in one round trip: the counter's row is locked from here to
            // the commit. PostgreSQL runs the main query's `counter` first and the clauses it does not read after it,
            // last to first (the orders' rows, which this transaction holds already, at the end).
            let chained: SQLQueryString = writes.isEmpty ? "" : ", \(writes.joined(separator: ", "))"
            let last = try await db.raw(
                """
                WITH counter AS (UPDATE counters SET value = value + \(bind: count) WHERE name = \(bind: "change") RETURNING value), \
                assigned AS (UPDATE orders SET \(assignments("counter.value - \(bind: count - 1) + v.column3")) \
                FROM counter, \(table(keys, keys.indices.map(Int64.init))) \
                WHERE orders.order_type_identifier = v.column1 AND orders.order_identifier = v.column2)\(chained) \
                SELECT value FROM counter
                """
            ).first(decodingColumn: "value", as: Int64.self)
            guard let last else { throw OrderStoreError.corruptRecord(table: "counters", reason: "the 'change' counter row is missing") }
            return Self.sequences(keys, last: last)
        }
        let last = try await nextChangeSequence(db, count: count)
        let sequences = Self.sequences(keys, last: last)
        // 9 binds a row stays far below SQLite's and PostgreSQL's bind limits.
        for chunk in keys.chunked(into: Self.statementChunk) {
            let chunk = Array(chunk)
            try await db.raw(
                """
                UPDATE orders SET \(assignments("v.column3")) FROM \(table(chunk, chunk.map { sequences[$0]! })) \
                WHERE orders.order_type_identifier = v.column1 AND orders.order_identifier = v.column2
                """
            ).run()
        }
        try await Self.runChained(db, writes)
        return sequences
    }

    /// The tags of `keys` in order, the last of them `last`.
    private static func sequences(_ keys: [OrderKey], last: Int64) -> [OrderKey: Int64] {
        var sequences: [OrderKey: Int64] = [:]
        for (offset, key) in keys.enumerated() { sequences[key] = last - Int64(keys.count - 1 - offset) }
        return sequences
    }

    // MARK: Merchants and API keys

    /// Creates a merchant with a new random lowercase UUID, dated by the store's clock.
    public func createMerchant(name: String) async throws -> MerchantRecord {
        let merchant = MerchantRecord(id: UUID().uuidString.lowercased(), name: name, createdAt: self.now())
        try await write("create merchant \(name)") { db in
            try await db.insert(into: "merchants")
                .columns("id", "name", "created_at")
                .values(merchant.id, merchant.name, merchant.createdAt.millisecondsSince1970)
                .run()
            try await self.addPlatformShares(db, merchantID: merchant.id)
        }
        return merchant
    }

    /// The merchant with this id, or `nil`.
    public func merchant(id: String) async throws -> MerchantRecord? {
        try await read("read merchant \(id)") { db in
            try await db.select().columns("id", "name", "created_at").from("merchants")
                .where("id", .equal, id)
                .first()
                .map(Self.merchant(from:))
        }
    }

    /// Every merchant, oldest first.
    public func merchants() async throws -> [MerchantRecord] {
        try await read("list merchants") { db in
            try await db.select().columns("id", "name", "created_at").from("merchants")
                .orderBy("created_at").orderBy("id")
                .all()
                .map(Self.merchant(from:))
        }
    }

    // MARK: Order types

    /// Creates or replaces an order type; a changed signing identity deletes the type's cached packages in the same
    /// transaction.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``, or
    ///   ``OrderStoreError/orderTypeOwnedByAnotherMerchant(orderTypeIdentifier:)`` when another merchant owns the identifier.
    public func upsertOrderType(_ record: OrderTypeRecord) async throws {
        let identity = try Self.encodeJSON(record.identity, name: "identity")
        let apnsToken = try record.apnsToken.map { try Self.encodeJSON($0, name: "apnsToken") }
        let type = record.orderTypeIdentifier
        let sealedIdentity = try seal(Data(identity.utf8), table: "order_types", column: "identity", key: type)
        let sealedAPNsToken = try apnsToken.map { try seal(Data($0.utf8), table: "order_types", column: "apns_token", key: type) }
        try await write("save order type \(record.orderTypeIdentifier)") { db in
            try await Self.requireMerchant(db, record.merchantID)
            let existing = try await db.select().columns("merchant_id", "identity").from("order_types")
                .where("order_type_identifier", .equal, record.orderTypeIdentifier)
                .first()
            if let existing {
                guard try existing.string("merchant_id") == record.merchantID else {
                    throw OrderStoreError.orderTypeOwnedByAnotherMerchant(orderTypeIdentifier: record.orderTypeIdentifier)
                }
                // Cached packages carry the old identity's signature: every instance rebuilds them with the new one.
                if try self.open(try existing.string("identity"), table: "order_types", column: "identity", key: type) != Data(identity.utf8) {
                    try await db.delete(from: "package_cache").where("order_type_identifier", .equal, record.orderTypeIdentifier).run()
                }
            }
            try await db.insert(into: "order_types")
                .columns("order_type_identifier", "merchant_id", "identity", "apns_token", "updated_at")
                .values(record.orderTypeIdentifier, record.merchantID, sealedIdentity, sealedAPNsToken, self.now().millisecondsSince1970)
                .onConflict(with: "order_type_identifier") {
                    $0.set(excludedValueOf: "identity").set(excludedValueOf: "apns_token").set(excludedValueOf: "updated_at")
                }
                .run()
            // The merchant's first order type is its default until it chooses another.
            try await db.update("merchants").set("default_order_type", to: record.orderTypeIdentifier)
                .where("id", .equal, record.merchantID).where("default_order_type", .is, SQLLiteral.null)
                .run()
        }
    }

    /// The merchant's default order type, which a created order without `orderTypeIdentifier` gets; `nil` when it has
    /// none (no order type, or its default was deleted).
    public func defaultOrderType(merchantID: String) async throws -> String? {
        try await read("read the default order type of merchant \(merchantID)") { db in
            try await db.select().column("default_order_type").from("merchants").where("id", .equal, merchantID)
                .first()
                .flatMap { try $0.optionalString("default_order_type") }
        }
    }

    /// Makes one of the merchant's order types its default.
    ///
    /// - Throws: ``OrderStoreError/orderTypeNotFound(orderTypeIdentifier:)`` when the merchant has no such order type.
    public func setDefaultOrderType(merchantID: String, orderTypeIdentifier: String) async throws {
        try await write("set the default order type of merchant \(merchantID)") { db in
            let owned = try await db.select().column("order_type_identifier").from("order_types")
                .where("order_type_identifier", .equal, orderTypeIdentifier).where("merchant_id", .equal, merchantID)
                .first()
            guard owned != nil else { throw OrderStoreError.orderTypeNotFound(orderTypeIdentifier: orderTypeIdentifier) }
            try await db.update("merchants").set("default_order_type", to: orderTypeIdentifier).where("id", .equal, merchantID).run()
        }
    }

    /// The order type with this identifier, or `nil` when none is configured.
    public func orderType(_ orderTypeIdentifier: String) async throws -> OrderTypeRecord? {
        try await read("read order type \(orderTypeIdentifier)") { db in
            // Raw text: read for every signature and push (see ``orderColumnList``).
            try await db.raw(
                "SELECT order_type_identifier, merchant_id, identity, apns_token FROM order_types WHERE order_type_identifier = \(bind: orderTypeIdentifier)"
            ).first().map(self.orderType(from:))
        }
    }

    /// A merchant's order types, sorted by identifier.
    public func orderTypes(merchantID: String) async throws -> [OrderTypeRecord] {
        try await read("list order types of merchant \(merchantID)") { db in
            try await db.select().columns("order_type_identifier", "merchant_id", "identity", "apns_token").from("order_types")
                .where("merchant_id", .equal, merchantID)
                .orderBy("order_type_identifier")
                .all()
                .map(self.orderType(from:))
        }
    }

    // MARK: Helpers

    /// The store's clock, at the millisecond resolution rows keep.
    func now() -> Date {
        Date(millisecondsSince1970: clock().millisecondsSince1970)
    }

    static func requireMerchant(_ db: any SQLDatabase, _ id: String) async throws {
        let found = try await db.select().column("id").from("merchants").where("id", .equal, id).first()
        guard found != nil else { throw OrderStoreError.merchantNotFound(id: id) }
    }

    static func merchant(from row: any SQLRow) throws -> MerchantRecord {
        MerchantRecord(id: try row.string("id"), name: try row.string("name"), createdAt: try row.date("created_at"))
    }

    static func encodeJSON(_ value: some Encodable, name: String) throws -> String {
        do {
            // Sorted keys: equal values encode to equal text, which upsertOrderType compares.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw OrderStoreError.invalidArgument(name: name, reason: "cannot be encoded: \(error)")
        }
    }

    func orderType(from row: any SQLRow) throws -> OrderTypeRecord {
        let key = OpenedOrderTypeKey(
            orderTypeIdentifier: try row.string("order_type_identifier"), identity: try row.string("identity"),
            apnsToken: try row.optionalString("apns_token"))
        let merchantID = try row.string("merchant_id")
        if let opened = openedOrderTypes.withLock({ $0.value(forKey: key) }) {
            return OrderTypeRecord(
                orderTypeIdentifier: key.orderTypeIdentifier, merchantID: merchantID, identity: opened.identity, apnsToken: opened.apnsToken)
        }
        let type = key.orderTypeIdentifier
        let identityJSON = try open(key.identity, table: "order_types", column: "identity", key: type)
        let apnsTokenJSON = try key.apnsToken.map { try open($0, table: "order_types", column: "apns_token", key: type) }
        let opened: OpenedOrderType
        do {
            opened = OpenedOrderType(
                identity: try JSONDecoder().decode(IdentityConfig.self, from: identityJSON),
                apnsToken: try apnsTokenJSON.map { try JSONDecoder().decode(APNsTokenConfig.self, from: $0) })
        } catch {
            throw OrderStoreError.corruptRecord(table: "order_types", reason: "identity or APNs token of \(type) is not valid: \(error)")
        }
        openedOrderTypes.withLock { _ = $0.setValue(opened, forKey: key, cost: 1) }
        return OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchantID, identity: opened.identity, apnsToken: opened.apnsToken)
    }
}

/// An order type row's sealed columns, as stored.
struct OpenedOrderTypeKey: Hashable, Sendable {
    var orderTypeIdentifier: String
    var identity: String
    var apnsToken: String?
}

/// What an order type row's sealed columns hold.
struct OpenedOrderType: Sendable {
    var identity: IdentityConfig
    var apnsToken: APNsTokenConfig?
}

/// A write transaction on the store's database, as ``SQLOrderStore/withRawWriteTransaction(_:_:)`` lends it.
public struct RawWriteTransaction: Sendable {
    let store: SQLOrderStore
    /// The transaction's connection: the same SQL serves SQLite and PostgreSQL.
    public let database: any SQLDatabase
    /// The store's clock when the transaction began, in milliseconds since 1970 as timestamp columns keep it.
    public let nowMilliseconds: Int64

    /// Takes the next `count` change sequences (the counter every order change takes a tag from) and returns the last;
    /// rows written with them become visible to devices in the order of their tags.
    public func takeChangeSequences(_ count: Int64) async throws -> Int64 {
        try await store.nextChangeSequence(database, count: count)
    }
}
