import SQLKit
import TestSupport

@testable import OrderPersistence

extension SQLOrderStore {
    /// The plan of `query` on the store's database, a line per step: PostgreSQL's `EXPLAIN` (after `ANALYZE` when
    /// asked: the tests' tables are too fresh for autovacuum) or SQLite's `EXPLAIN QUERY PLAN` details.
    func plan(analyze: Bool = false, of query: (any SQLDatabase) -> any SQLExpression) async throws -> [String] {
        try await read("explain") { db in
            if db.dialect.name == "postgresql", analyze { try await db.raw("ANALYZE").run() }
            return try await Self.explain(query(db), in: db)
        }
    }

    /// The plan of a queue's claim as the store runs it (``writeClaim(_:_:)``: on PostgreSQL with its planner settings),
    /// after PostgreSQL's `ANALYZE` of `tables`, if any.
    func claimPlan(analyzing tables: [String] = [], of query: any SQLExpression) async throws -> [String] {
        try await writeClaim("explain a claim") { db in
            if db.dialect.name == "postgresql", !tables.isEmpty { try await db.raw("ANALYZE \(idents: tables, joinedBy: ", ")").run() }
            return try await Self.explain(query, in: db)
        }
    }

    private static func explain(_ query: any SQLExpression, in db: any SQLDatabase) async throws -> [String] {
        if db.dialect.name == "postgresql" {
            return try await db.raw("EXPLAIN \(query)").all(decodingColumn: "QUERY PLAN", as: String.self)
        }
        return try await db.raw("EXPLAIN QUERY PLAN \(query)").all(decodingColumn: "detail", as: String.self)
    }
}
