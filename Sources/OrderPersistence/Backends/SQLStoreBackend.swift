import SQLKit

/// The engine-specific part of the store: how connections are leased, how a write transaction begins,
/// and how engine errors read. Every query lives in shared SQLKit code in ``SQLOrderStore``.
protocol SQLStoreBackend: Sendable {
    /// Runs `body` inside a write transaction, committed if `body` returns and rolled back if it throws.
    /// Concurrent callers never fail with "database is busy": the backend serializes or locks as needed. `preparing`
    /// `false` keeps one-off statements (migrations) from taking prepared statements' places (PostgreSQL).
    func withWriteTransaction<T: Sendable>(preparing: Bool, _ body: (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body`, a single statement, outside an explicit transaction: it commits by itself, in one round trip instead
    /// of three (BEGIN, the statement, COMMIT). A lost connection is not retried, as the statement may have committed.
    func withSingleStatementWrite<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body` on a connection that sees every committed write; `extent` says how much it may read.
    func withReader<T: Sendable>(_ extent: ReadExtent, _ body: (any SQLDatabase) async throws -> T) async throws -> T

    /// A one-line explanation of an engine error, with the kind of constraint it violated, if any.
    func describe(_ error: any Error) -> BackendErrorDescription

    /// Appended to the subquery that picks push jobs to claim, so concurrent claimers skip each other's rows
    /// (PostgreSQL: ` FOR UPDATE SKIP LOCKED`); empty where writers are serialized anyway.
    var skipLockedClause: String { get }

    /// Appended to a SELECT of one row that the transaction then decides on, so concurrent transactions deciding on
    /// the same row take turns (PostgreSQL: ` FOR UPDATE`); empty where writers are serialized anyway.
    var rowLockClause: String { get }

    /// How many write transactions of one kind (order updates, package writes, carrier events) this process runs at
    /// once: 1 where the database has one writer anyway (SQLite).
    var concurrentWriters: Int { get }

    /// Runs `body`, a queue's claim (push jobs, carrier events), as a single statement that commits by itself, planned
    /// with index scans only. PostgreSQL's planner takes a queue it believes small for a sequential or bitmap scan and
    /// a sort, which visit every job deleted (or event applied) since the last vacuum at each claim; only an index scan
    /// marks their entries dead for the next claim, so the claim allows no other. (SQLite's planner reads the queue's
    /// index in order whatever its statistics.)
    func withQueueClaim<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T

    /// Run first in every migration transaction, so that processes starting together migrate one at a time.
    var migrationLock: SQLQueryString? { get }

    /// Brings the planner's statistics of a table up to date after a bulk write (PostgreSQL: `ANALYZE`); `nil` where
    /// plans do not depend on them.
    func statisticsRefresh(of table: String) -> SQLQueryString?

    /// Reports changes other processes commit until the task is cancelled (``StoreChangeFeed/followChanges(_:)``).
    func followChanges(_ report: @escaping @Sendable (StoreChangeEvent) async -> Void) async throws

    /// Waits for running operations, then closes every connection and thread.
    func shutdown() async throws
}

extension SQLStoreBackend {
    /// Runs `body` inside a write transaction whose statements that repeat run prepared.
    func withWriteTransaction<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withWriteTransaction(preparing: true, body)
    }
}

/// An engine error in engine-neutral terms.
struct BackendErrorDescription: Sendable {
    enum Kind: Sendable {
        case uniqueViolation, foreignKeyViolation
        /// Deadlock or serialization failure: running the transaction again may succeed.
        case transient
        /// The database cannot be reached or is not serving.
        case unavailable
        /// A lock was held by another writer longer than the store waits.
        case busy
        /// No space left for the database.
        case storageFull
        case other
    }

    var kind: Kind
    var message: String
}

/// How much a read may visit, which decides where SQLite runs it (PostgreSQL runs both kinds alike).
enum ReadExtent: Sendable {
    /// A bounded number of rows found through an index: SQLite runs it on the calling thread. The hop to the
    /// connection's thread and back cost more than such a read (`bench lookup`, whose two reads are of this kind:
    /// median 0.36 → 0.49 of `/healthz`, eight alternated runs each, 2026-11-29).
    case rows
    /// A count or aggregate over many rows (insights, the dashboard's counts, the queue's depth): SQLite runs it on the
    /// connection's own thread, so that it never holds one of Swift's few shared threads for its whole length.
    case scan
}

extension SQLDatabase {
    /// Whether one statement may make several writes (PostgreSQL's data-modifying `WITH`). On PostgreSQL every statement
    /// is a round trip, and those after the change counter's row is locked hold it until the commit; SQLite has neither
    /// the syntax nor the round trips.
    var chainsWrites: Bool { dialect.name == "postgresql" }
}
