import Foundation
import SQLKit
import TestSupport
import Testing

@testable import OrderPersistence

/// Rows and lists bound to a statement (``SQLBoundRows``, ``SQLBoundMembership``) read back as given on both
/// databases, NULLs included, and on PostgreSQL their text is the same for any number of rows.
@Suite struct BoundRowsTests {
    @Test func rowsReadBackAsGivenWithNullsEmptyValuesAndManyRows() async throws {
        try await withStore { store, _ in
            for count in [1, 3, 2_500] {
                let texts: [String?] = (0..<count).map { index -> String? in index % 3 == 1 ? nil : "row \(index) é" }
                let integers: [Int64?] = (0..<count).map { index -> Int64? in index % 3 == 2 ? nil : Int64(index) * 3_000_000_000 - 7 }
                let blobs: [Data?] = (0..<count).map { index -> Data? in index % 4 == 3 ? nil : Data(repeating: UInt8(index % 256), count: index % 5)
                }
                let rows = SQLBoundRows(.text(texts), .integer(integers), .blob(blobs), .integer((0..<count).map(Int64.init)))
                let read = try await store.read("read bound rows") { db in
                    try await db.raw("SELECT v.column1, v.column2, v.column3 FROM \(rows) ORDER BY v.column4").all()
                }
                #expect(read.count == count)
                for (index, row) in read.enumerated() {
                    #expect(try row.optionalString("column1") == texts[index], "row \(index) of \(count)")
                    #expect(try row.decode(column: "column2", as: Int64?.self) == integers[index], "row \(index) of \(count)")
                    let blob = try row.decodeNil(column: "column3") ? nil : Data(try row.bytes("column3"))
                    #expect(blob == blobs[index], "row \(index) of \(count)")
                }
            }
            let none = try await store.read("read no bound rows") { db in
                try await db.raw("SELECT v.column1 FROM \(SQLBoundRows(.text([]), .integer([])))").all()
            }
            #expect(none.isEmpty)
        }
    }

    /// Behind a pooler (`prepared_statements=off`) the arrays go through PostgresKit's encoding instead.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func unpreparedArraysReadBackToo() async throws {
        let store = try await SQLOrderStore.postgres(
            PostgresStoreConfiguration(url: try TestDatabase.freshPostgresURL() + "&prepared_statements=off"), masterKey: testMasterKey)
        let rows = SQLBoundRows(.text(["a", nil, "c"]), .integer([nil, 2, 3]), .blob([Data([1]), nil, Data()]))
        let read = try await store.read("read bound rows") { db in
            try await db.raw("SELECT v.column1, v.column2, v.column3 FROM \(rows) WHERE v.column2 \(isIn: [2, 3]) OR v.column2 IS NULL").all()
        }
        try await store.shutdown()
        #expect(try read.map { try $0.optionalString("column1") } == ["a", nil, "c"])
        #expect(try read.map { try $0.decode(column: "column2", as: Int64?.self) } == [nil, 2, 3])
        #expect(try read.map { try $0.decodeNil(column: "column3") ? nil : $0.bytes("column3") } == [[1], nil, []])
    }

    @Test func membershipMatchesTheListAndNothingForAnEmptyOne() async throws {
        try await withStore { store, _ in
            let values: [Int64] = [1, 5, 9]
            let all = SQLBoundRows(.integer(Array(0..<12)))
            for (list, expected) in [(values, values), ([], []), (Array(0..<3_000), Array(0..<12))] as [([Int64], [Int64])] {
                let found = try await store.read("read members") { db in
                    try await db.raw("SELECT v.column1 FROM \(all) WHERE v.column1 \(isIn: list) ORDER BY v.column1").all()
                }
                #expect(try found.map { try $0.int64("column1") } == expected)
            }
            let names = try await store.read("read text members") { db in
                try await db.raw("SELECT v.column1 FROM \(SQLBoundRows(.text(["a", "b", "c"]))) WHERE v.column1 \(isIn: ["c", "a", "z"])").all()
            }
            #expect(Set(try names.map { try $0.string("column1") }) == ["a", "c"])
        }
    }

    @Test func onPostgreSQLTheTextIsTheSameForAnyNumberOfRowsOnSQLiteTheListsAsBefore() async throws {
        try await withStore { store, _ in
            let (short, long) = try await store.read("serialize") { db in
                func sql(_ count: Int) -> String {
                    let rows = SQLBoundRows(.text((0..<count).map { "\($0)" }), .integer((0..<count).map { Int64($0) }))
                    let ids = (0..<count).map { Int64($0) }
                    return db.serialize("SELECT v.column1 FROM \(rows) WHERE v.column2 \(isIn: ids)" as SQLQueryString).sql
                }
                return (sql(2), sql(300))
            }
            if store.backend is PostgresBackend {
                #expect(short == long)
                #expect(short == "SELECT v.column1 FROM unnest($1, $2) AS v(column1, column2) WHERE v.column2 = ANY($3)")
            } else {
                #expect(short == "SELECT v.column1 FROM (VALUES (?1, ?2), (?3, ?4)) AS v WHERE v.column2 IN (?5, ?6)")
            }
        }
    }
}
