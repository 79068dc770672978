import Foundation
import Logging
import SQLKit
import Testing

@testable import OrderPersistence

@Suite struct SQLiteDirectConnectionTests {
    /// A kept statement runs with new binds without being compiled again: SQLite 3.54 looks at the value of each
    /// `column = ?` while planning (whether it is 0 or 1), and clearing the bindings after a run expired such a plan
    /// every time. (A new value that is 0 or 1, or replaces one, still does; the store's binds are texts and larger
    /// integers.)
    @Test func aKeptStatementIsNotCompiledAgainForNewBinds() async throws {
        let connection = try await SQLiteDirectConnection.open(path: ":memory:", name: "test")
        try await withTaskExecutorPreference(connection.thread) {
            try connection.execute("CREATE TABLE t (a TEXT, b INTEGER, c TEXT)")
            try connection.execute("CREATE INDEX t_a ON t (a, b)")
            for row in 2..<12 {
                try connection.execute("INSERT INTO t VALUES (?1, ?2, ?3)", [.text("a\(row % 3)"), .integer(row), .text("c\(row)")])
            }
            let query = "SELECT c FROM t WHERE a = ?1 AND b = ?2 ORDER BY c LIMIT ?3"
            var found: [String] = []
            for row in 2..<12 {
                try connection.execute(query, [.text("a\(row % 3)"), .integer(row), .integer(5)]) {
                    found.append((try? $0.decode(column: "c", as: String.self)) ?? "")
                }
            }
            #expect(found == (2..<12).map { "c\($0)" }, "each run reads its own binds")
            // Once: the first run plans with its values.
            #expect(connection.recompilations(of: query) == 1)
        }
        await connection.close()
    }

    /// A read of a few rows runs where its task already runs; a scan runs on its connection's own thread, so that a long
    /// one never holds one of Swift's shared threads.
    @Test func aShortReadRunsOnTheCallingThreadAndAScanOnTheConnections() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let backend = try await SQLiteBackend.open(
            path: directory.databasePath, readerCount: 1, logger: Logger(label: "test"), clock: ContinuousClock())
        let read = { @Sendable (db: any SQLDatabase) async throws -> (id: pthread_t, name: String) in
            #expect(try await db.raw("SELECT 1 AS one").first(decodingColumn: "one", as: Int.self) == 1)
            return (pthread_self(), Self.threadName())
        }
        let short = try await backend.withReader(.rows, read)
        let scans = [try await backend.withReader(.scan, read), try await backend.withReader(.scan, read)]
        try await backend.shutdown()
        #expect(scans[0].id == scans[1].id, "both scans ran on the one reader's thread")
        #expect(scans[0].name == "sqlite-reader-0")
        #expect(short.id != scans[0].id)
        #expect(short.name != "sqlite-reader-0")
    }

    /// The kernel's name of the calling thread, as `top -H` and `perf` show it.
    private static func threadName() -> String {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return name.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
