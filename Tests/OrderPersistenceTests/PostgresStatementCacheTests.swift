import Foundation
import PostgresNIO
import SQLKit
import TestSupport
import Testing

@testable import OrderPersistence

/// Statements that repeat run prepared on PostgreSQL (``PostgresStatementCache``); one-offs, transaction commands and
/// statements past the bound run unnamed; a statement a migration made stale is prepared again.
@Suite struct PostgresStatementCacheTests {
    private static func key(_ sql: String, _ types: [PostgresDataType] = [.text]) -> PostgresStatementCache.Key {
        .init(sql: sql, types: types)
    }

    @Test func aStatementGetsASlotTheSecondTimeItIsSeenAndKeepsIt() throws {
        let cache = PostgresStatementCache(capacity: 2)
        let select = Self.key("SELECT 1 WHERE $1 = 'a'")
        #expect(cache.entry(for: select) == nil, "seen once: unnamed")
        let entry = try #require(cache.entry(for: select))
        #expect(entry.name == "ordertrack_0" && entry.key == select)
        #expect(cache.entry(for: select)?.name == "ordertrack_0")
        // The same SQL bound with NULL is another statement: its parameter's type is PostgreSQL's to infer.
        let withNull = Self.key(select.sql, [.null])
        #expect(cache.entry(for: withNull) == nil)
        #expect(cache.entry(for: withNull)?.name == "ordertrack_1")
        // Full: a new statement runs unnamed however often it is seen; the kept ones keep their slots.
        let other = Self.key("SELECT 2 WHERE $1 = 'b'")
        for _ in 0..<3 { #expect(cache.entry(for: other) == nil) }
        #expect(cache.entry(for: select)?.name == "ordertrack_0")
        #expect(cache.count == 2)
    }

    @Test func transactionCommandsAndLongListsOfBindsNeverGetASlot() {
        let cache = PostgresStatementCache(capacity: 4)
        let begin = Self.key("BEGIN", [])
        let long = Self.key("SELECT 1 WHERE $1 IN (…)", Array(repeating: .text, count: PostgresStatementCache.maximumBinds + 1))
        let longest = Self.key("SELECT 2 WHERE $1 IN (…)", Array(repeating: .text, count: PostgresStatementCache.maximumBinds))
        for _ in 0..<3 {
            #expect(cache.entry(for: begin) == nil)
            #expect(cache.entry(for: long) == nil)
        }
        _ = cache.entry(for: longest)
        #expect(cache.entry(for: longest) != nil)
        #expect(cache.count == 1)
    }

    @Test func everySlotIsATypeOfItsOwnThatKnowsItsNumber() throws {
        let cache = PostgresStatementCache(capacity: 300)
        var types = Set<ObjectIdentifier>()
        for index in 0..<300 {
            let key = Self.key("SELECT \(index) WHERE $1 = 'a'")
            _ = cache.entry(for: key)
            let entry = try #require(cache.entry(for: key))
            #expect(entry.slot.number == index + 1)
            types.insert(ObjectIdentifier(entry.slot))
        }
        #expect(types.count == 300)
    }

    @Test(arguments: [
        ("SELECT 1", true), ("  select * FROM orders", true), ("(SELECT 1) UNION (SELECT 2)", true),
        ("WITH x AS (SELECT 1) SELECT * FROM x", true), ("INSERT INTO t VALUES ($1)", true), ("update t SET a = $1", true),
        ("DELETE FROM t", true), ("BEGIN", false), ("COMMIT", false), ("ROLLBACK", false), ("SET LOCAL a = 1", false),
        ("ANALYZE (SKIP_LOCKED) push_jobs", false), ("CREATE TABLE t (a int)", false), ("SELECTED", false),
    ])
    func onlyDataStatementsArePrepared(sql: String, preparable: Bool) {
        #expect(PostgresStatementCache.isPreparable(sql) == preparable)
    }

    @Test func bindsAreTypedAsPostgresNIOSendsThemAndOthersLeaveTheStatementUnnamed() throws {
        let (bindings, types) = try #require(try PostgresStatementCache.bindings(["a", Int64(2), String?.none, true, String?.some("b")]))
        #expect(types == [.text, .int8, .null, .bool, .text])
        #expect(bindings.count == 5)
        struct Pair: Codable, Sendable { var a: Int }
        #expect(try PostgresStatementCache.bindings(["a", Pair(a: 1)]) == nil, "PostgresKit's own encodings take it")
    }

    /// The statements on the one connection of `store` that PostgreSQL holds prepared.
    private static func prepared(on store: SQLOrderStore) async throws -> [String] {
        try await store.read("list prepared statements") { db in
            try await db.raw("SELECT statement FROM pg_prepared_statements").all(decodingColumn: "statement", as: String.self)
        }
    }

    /// The store's own statements, which every test process repeats, fit in the bound with room to spare: the tests
    /// below rely on it, and so does a server (migrations, one-offs, run unnamed).
    private static func requireRoom() throws {
        let cache = PostgresStatementCache.shared
        try #require(cache.count < cache.capacity - 10, "\(cache.count) of \(cache.capacity) slots taken")
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aStatementThatRepeatsRunsPreparedOnItsConnection() async throws {
        try Self.requireRoom()
        let url = try TestDatabase.freshPostgresURL()
        for prepares in [true, false] {
            let store = try await SQLOrderStore.postgres(
                PostgresStoreConfiguration(url: url + "&pool=1&prepared_statements=\(prepares ? "on" : "off")"), masterKey: testMasterKey)
            let sql = "SELECT value FROM counters WHERE name = $1"
            for _ in 0..<3 {
                let value = try await store.read("read the counter") { db in
                    try await db.raw("SELECT value FROM counters WHERE name = \(bind: "change")").first(decodingColumn: "value", as: Int64.self)
                }
                #expect(value == 0)
            }
            let prepared = try await Self.prepared(on: store)
            #expect(prepared.contains(sql) == prepares, "prepared: \(prepared)")
            // Migrations, run by every store's opening, are one-offs: never prepared.
            #expect(!prepared.contains { $0.contains("schema_migrations") }, "prepared: \(prepared)")
            try await store.shutdown()
        }
    }

    /// A rolling upgrade: another instance's migration adds a column while this one holds `SELECT *` prepared.
    /// PostgreSQL refuses the stale statement (0A000); the read runs again on a new connection and sees the column.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aStatementAMigrationMadeStaleIsPreparedAgain() async throws {
        try Self.requireRoom()
        let url = try TestDatabase.freshPostgresURL()
        let store = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url + "&pool=1"), masterKey: testMasterKey)
        let migrating = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
        @Sendable func columns() async throws -> [String] {
            try await store.read("read the counter") { db in
                try #require(try await db.raw("SELECT * FROM counters WHERE name = \(bind: "change")").first()).allColumns
            }
        }
        _ = try await columns()
        #expect(try await columns() == ["name", "value"])
        #expect(try await Self.prepared(on: store).contains("SELECT * FROM counters WHERE name = $1"))
        try await migrating.write("add a column") { db in
            try await db.raw("ALTER TABLE counters ADD COLUMN note TEXT").run()
        }
        #expect(try await columns() == ["name", "value", "note"])
        #expect(try await columns() == ["name", "value", "note"])
        try await store.shutdown()
        try await migrating.shutdown()
    }
}
