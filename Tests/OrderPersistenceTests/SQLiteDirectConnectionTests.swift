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
}
