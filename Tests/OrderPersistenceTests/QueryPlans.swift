import SQLKit
import TestSupport

@testable import OrderPersistence

extension SQLOrderStore {
    /// The plan of `query` on the store's database, a line per step: PostgreSQL's `EXPLAIN` (after `ANALYZE` when
    /// asked: the tests' tables are too fresh for autovacuum) or SQLite's `EXPLAIN QUERY PLAN` details.
    func plan(analyze: Bool = false, of query: (any SQLDatabase) -> any SQLExpression) async throws -> [String] {
        try await read("explain") { db in
            if TestDatabase.usesPostgres {
                if analyze { try await db.raw("ANALYZE").run() }
                return try await db.raw("EXPLAIN \(query(db))").all(decodingColumn: "QUERY PLAN", as: String.self)
            }
            return try await db.raw("EXPLAIN QUERY PLAN \(query(db))").all(decodingColumn: "detail", as: String.self)
        }
    }
}
