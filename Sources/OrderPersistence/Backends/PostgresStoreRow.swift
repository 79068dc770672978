import Foundation
import PostgresKit

/// A PostgreSQL row as SQLKit's `SQLRow` that decodes the store's column types (text, integers, `bytea`, booleans,
/// doubles) straight from their cells.
///
/// Why not PostgresKit's row: it decodes every value through `Decodable`, making a decoder and coding keys for each; in
/// a fan-out to 100,000 devices on PostgreSQL (each claimed job a row of nine columns) that was 6 % of the machine's
/// CPU. Another type, or a value the direct decoding refuses, goes PostgresKit's way, errors included.
struct PostgresStoreRow: SQLRow {
    let row: PostgresRow
    let cells: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row
        self.cells = row.makeRandomAccess()
    }

    var allColumns: [String] { cells.map(\.columnName) }

    func contains(column: String) -> Bool { cells.contains(column) }

    func decodeNil(column: String) throws -> Bool {
        !cells.contains(column) || cells[column].bytes == nil
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        if cells.contains(column), let value = try? Self.direct(cells[column], as: D.self) { return value }
        return try row.sql(decodingContext: .default).decode(column: column, as: D.self)
    }

    private static func direct<D>(_ cell: PostgresCell, as type: D.Type) throws -> D? {
        if D.self == String.self { return try cell.decode(String.self) as? D }
        if D.self == Int64.self { return try cell.decode(Int64.self) as? D }
        if D.self == Int.self { return try cell.decode(Int.self) as? D }
        if D.self == Data.self { return try cell.decode(Data.self) as? D }
        if D.self == Bool.self { return try cell.decode(Bool.self) as? D }
        if D.self == Double.self { return try cell.decode(Double.self) as? D }
        return nil
    }
}
