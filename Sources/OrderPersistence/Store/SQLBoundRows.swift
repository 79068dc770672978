import Foundation
import NIOCore
import PostgresNIO
import SQLKit

/// One column of rows bound to a statement: its values, row by row.
enum SQLBoundColumn: Sendable {
    case text([String?])
    case integer([Int64?])
    case blob([Data?])

    var count: Int {
        switch self {
        case .text(let values): values.count
        case .integer(let values): values.count
        case .blob(let values): values.count
        }
    }

    /// The value of row `index`, bound alone (SQLite's lists).
    fileprivate func bind(_ index: Int) -> any Encodable & Sendable {
        switch self {
        case .text(let values): values[index]
        case .integer(let values): values[index]
        case .blob(let values): values[index]
        }
    }

    /// The whole column as one PostgreSQL array.
    fileprivate var array: any Encodable & Sendable {
        switch self {
        case .text(let values): PostgresNullableArray(values)
        case .integer(let values): PostgresNullableArray(values)
        case .blob(let values): PostgresNullableArray(values)
        }
    }
}

/// Rows given to a statement as a table `v(column1, …, columnN)`: a `VALUES` list on SQLite, one array per column
/// through `unnest` on PostgreSQL.
///
/// PostgreSQL prepares a statement only once its text repeats (``PostgresStatementCache``), and a `VALUES` list's
/// text changes with its length: in a carrier scan, 1,331 of the 1,333 statements that take the change counter were
/// parsed and planned again (0.57 s of planning for 2.0 s of execution); with arrays, 79 of 1,360.
///
/// Not for a few rows joined by key to a large table (an order's package, its fulfillments, the orders a batch
/// locks): a generic plan guesses 100 rows for `unnest`, so PostgreSQL judged the plan for the actual rows cheaper
/// and planned those statements on every run (2,744 plans in 2,734 runs of the package cache's write, against 50
/// with its one-row `VALUES`). They keep `VALUES`, prepared for each length that repeats while the statement has at
/// most ``PostgresStatementCache/maximumBinds`` binds.
struct SQLBoundRows: SQLExpression {
    let columns: [SQLBoundColumn]

    /// - Precondition: every column as long as the first.
    init(_ columns: [SQLBoundColumn]) {
        precondition(!columns.isEmpty && columns.allSatisfy { $0.count == columns[0].count })
        self.columns = columns
    }

    init(_ columns: SQLBoundColumn...) {
        self.init(columns)
    }

    var count: Int { columns[0].count }

    func serialize(to serializer: inout SQLSerializer) {
        if serializer.dialect.name == "postgresql" {
            serializer.write("unnest(")
            for (index, column) in columns.enumerated() {
                if index > 0 { serializer.write(", ") }
                serializer.write(bind: column.array)
            }
            serializer.write(") AS v(")
            serializer.write((1...columns.count).map { "column\($0)" }.joined(separator: ", "))
            serializer.write(")")
        } else if count == 0 {
            // SQLite has no empty `VALUES`.
            serializer.write("(SELECT ")
            serializer.write((1...columns.count).map { "NULL AS column\($0)" }.joined(separator: ", "))
            serializer.write(" LIMIT 0) AS v")
        } else {
            serializer.write("(VALUES ")
            writeTuples(to: &serializer)
            serializer.write(") AS v")
        }
    }

    private func writeTuples(to serializer: inout SQLSerializer) {
        for row in 0..<count {
            serializer.write(row == 0 ? "(" : ", (")
            for (index, column) in columns.enumerated() {
                if index > 0 { serializer.write(", ") }
                serializer.write(bind: column.bind(row))
            }
            serializer.write(")")
        }
    }
}

/// `IN` a list of values: `IN (?, ?)` on SQLite, `= ANY($1)` with one array on PostgreSQL, so the text is the same
/// for any length (see ``SQLBoundRows``).
struct SQLBoundMembership: SQLExpression {
    let values: SQLBoundColumn

    func serialize(to serializer: inout SQLSerializer) {
        if serializer.dialect.name == "postgresql" {
            serializer.write("= ANY(")
            serializer.write(bind: values.array)
            serializer.write(")")
        } else {
            serializer.write("IN (")
            for row in 0..<values.count {
                if row > 0 { serializer.write(", ") }
                serializer.write(bind: values.bind(row))
            }
            serializer.write(")")
        }
    }
}

extension SQLQueryString.StringInterpolation {
    /// `IN` these values (``SQLBoundMembership``): write `WHERE id \(isIn: ids)`.
    mutating func appendInterpolation(isIn values: [Int64]) {
        appendInterpolation(SQLBoundMembership(values: .integer(values)))
    }

    /// `IN` these values (``SQLBoundMembership``).
    mutating func appendInterpolation(isIn values: [String]) {
        appendInterpolation(SQLBoundMembership(values: .text(values)))
    }
}

/// A one-dimensional PostgreSQL array whose elements may be `NULL`, which PostgresNIO's `Array` cannot send.
struct PostgresNullableArray<Element: PostgresArrayElement>: PostgresEncodable, Encodable, Sendable {
    let elements: [Element?]

    init(_ elements: [Element?]) {
        self.elements = elements
    }

    static var psqlType: PostgresDataType { Element.arrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) throws {
        // PostgreSQL's binary array: dimensions, whether any element is NULL, the element type, then the one
        // dimension's length and lower bound, and each element as its length (-1 for NULL) and bytes.
        buffer.writeInteger(1, as: Int32.self)
        buffer.writeInteger(elements.contains(where: { $0 == nil }) ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.elementType.rawValue)
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            element.writePostgresElement(into: &buffer)
            buffer.setInteger(Int32(buffer.writerIndex - lengthIndex - 4), at: lengthIndex)
        }
    }

    /// SQLKit's binds are `Encodable`; only PostgreSQL is given this type, and it uses ``encode(into:context:)``.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(elements)
    }
}

/// What ``PostgresNullableArray`` holds, in PostgreSQL's binary format.
protocol PostgresArrayElement: Encodable, Equatable, Sendable {
    static var elementType: PostgresDataType { get }
    static var arrayType: PostgresDataType { get }
    func writePostgresElement(into buffer: inout ByteBuffer)
}

extension String: PostgresArrayElement {
    static var elementType: PostgresDataType { .text }
    static var arrayType: PostgresDataType { .textArray }
    func writePostgresElement(into buffer: inout ByteBuffer) { buffer.writeString(self) }
}

extension Int64: PostgresArrayElement {
    static var elementType: PostgresDataType { .int8 }
    static var arrayType: PostgresDataType { .int8Array }
    func writePostgresElement(into buffer: inout ByteBuffer) { buffer.writeInteger(self) }
}

extension Data: PostgresArrayElement {
    static var elementType: PostgresDataType { .bytea }
    static var arrayType: PostgresDataType { .byteaArray }
    func writePostgresElement(into buffer: inout ByteBuffer) { buffer.writeBytes(self) }
}
