import Foundation
import SQLKit
import Testing

@testable import OrderPersistence

/// The store's rows decode its column types straight from the values (``PostgresStoreRow``, ``SQLiteDirectRow``), and
/// every other type, and every error, as SQLKit's decoding did.
@Suite struct RowDecodingTests {
    @Test func eachColumnTypeDecodesDirectlyAndOtherTypesAsBefore() async throws {
        try await withStore { store, _ in
            let postgres = store.backend is PostgresBackend
            let row = try await store.read("decode") { db in
                try await db.raw(
                    postgres
                        ? """
                        SELECT 'text é'::text AS s, 7::int4 AS i4, 9000000000::int8 AS i8, '\\x00ff10'::bytea AS b, true AS t,
                            1.5::float8 AS d, NULL::text AS n
                        """
                        : "SELECT 'text é' AS s, 7 AS i4, 9000000000 AS i8, x'00ff10' AS b, 1 AS t, 1.5 AS d, NULL AS n"
                ).first()
            }
            let decoded = try #require(row)
            #expect(decoded.allColumns == ["s", "i4", "i8", "b", "t", "d", "n"])
            #expect(try decoded.string("s") == "text é")
            #expect(try decoded.int("i4") == 7 && decoded.int64("i4") == 7)
            #expect(try decoded.int64("i8") == 9_000_000_000)
            #expect(try decoded.bytes("b") == [0x00, 0xff, 0x10])
            #expect(try decoded.decode(column: "t", as: Bool.self))
            #expect(try decoded.decode(column: "d", as: Double.self) == 1.5)
            #expect(try decoded.decodeNil(column: "n") && !decoded.decodeNil(column: "s"))
            #expect(try decoded.optionalString("n") == nil && decoded.optionalString("s") == "text é")
            #expect(try decoded.decode(column: "n", as: String?.self) == nil, "an optional goes the general way")
            #expect(try decoded.decode(column: "d", as: Float.self) == 1.5, "a type without a direct path goes the general way")
            #expect(!decoded.contains(column: "missing") && decoded.contains(column: "s"))
            #expect(throws: (any Error).self, "a missing column") { try decoded.string("missing") }
            #expect(throws: (any Error).self, "a NULL is no String") { try decoded.string("n") }
            if postgres {
                #expect(throws: (any Error).self, "bytes are no Int64") { try decoded.int64("b") }
            }
        }
    }
}
