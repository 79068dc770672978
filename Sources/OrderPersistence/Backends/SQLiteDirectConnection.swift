import BoundedCache
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import VaporCSQLite

import struct Foundation.Data

/// One SQLite connection, driven through SQLite's C API (the copy sqlite-nio builds) on its ``SQLiteThread``, with its
/// compiled statements kept for reuse. One task uses it at a time: its pool's lease.
///
/// Values cross in sqlite-kit's vocabulary (`SQLiteData`, its encoder, decoder and dialect), so what is stored and how
/// it reads back is what sqlite-kit gave before.
final class SQLiteDirectConnection: @unchecked Sendable {
    let thread: SQLiteThread
    private let handle: OpaquePointer
    /// Compiled statements by SQL text. The store's statements are a fixed set but for lists of binds of varying
    /// length, so a bound keeps those from growing it without end.
    private var statements = LRUCache<String, CompiledStatement>(capacity: 256)
    private var closed = false

    private init(handle: OpaquePointer, thread: SQLiteThread) {
        self.handle = handle
        self.thread = thread
    }

    /// Opens `path` (created if missing), or a private in-memory database for `":memory:"`, on a new thread; the file
    /// work runs there, not on Swift's shared pool.
    static func open(path: String, name: String) async throws -> SQLiteDirectConnection {
        let thread = SQLiteThread(name: name)
        do {
            return try await withTaskExecutorPreference(thread) {
                var handle: OpaquePointer?
                let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
                let status = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
                guard status == SQLITE_OK, let handle else {
                    let message = handle.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "out of memory"
                    sqlite_nio_sqlite3_close_v2(handle)
                    throw SQLiteEngineError(code: status, message: message)
                }
                return SQLiteDirectConnection(handle: handle, thread: thread)
            }
        } catch {
            thread.stop()
            throw error
        }
    }

    /// Runs one statement, calling `onRow` for each row it returns.
    func execute(_ sql: String, _ binds: [SQLiteData] = [], _ onRow: (SQLiteDirectRow) -> Void = { _ in }) throws {
        guard !closed else { throw SQLiteEngineError(code: SQLITE_MISUSE, message: "the connection is closed") }
        let statement = try compiled(sql)
        // Not sqlite3_clear_bindings: every run binds every parameter anew, and clearing expires any statement whose
        // plan looked at a bound value (SQLite 3.54 looks at each `column = ?` for 0 and 1), so SQLite compiled such a
        // statement again on every run (`bench lookup`: every order read, 4 % of the CPU).
        defer { sqlite_nio_sqlite3_reset(statement) }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let integer): status = sqlite_nio_sqlite3_bind_int64(statement, index, Int64(integer))
            case .float(let double): status = sqlite_nio_sqlite3_bind_double(statement, index, double)
            case .null: status = sqlite_nio_sqlite3_bind_null(statement, index)
            case .text(var text):
                status = text.withUTF8 {
                    sqlite_nio_sqlite3_bind_text64(statement, index, $0.baseAddress, UInt64($0.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            case .blob(let buffer):
                status = buffer.withUnsafeReadableBytes {
                    sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), sqliteTransient)
                }
            }
            guard status == SQLITE_OK else { throw lastError(status) }
        }
        var columns: SQLiteColumnNames?
        while true {
            switch sqlite_nio_sqlite3_step(statement) {
            case SQLITE_ROW:
                let names = columns ?? SQLiteColumnNames(statement)
                columns = names
                var values: [SQLiteData] = []
                values.reserveCapacity(names.names.count)
                for column in 0..<Int32(names.names.count) {
                    values.append(Self.value(statement, column))
                }
                onRow(SQLiteDirectRow(columns: names, values: values))
            case SQLITE_DONE:
                return
            case let status:
                throw lastError(status)
            }
        }
    }

    /// Finalizes the kept statements and closes the database on the connection's thread (closing may checkpoint the
    /// log into the file), then ends the thread.
    func close() async {
        await withTaskExecutorPreference(thread) {
            guard !closed else { return }
            closed = true
            for statement in statements.removeAll(where: { _ in true }) {
                sqlite_nio_sqlite3_finalize(statement.value.pointer)
            }
            sqlite_nio_sqlite3_close_v2(handle)
        }
        thread.stop()
    }

    /// How many times SQLite compiled the kept statement of `sql` again since it was first compiled (a schema change
    /// or a new binding that expired its plan); `nil` when none is kept. For tests of the statement cache.
    func recompilations(of sql: String) -> Int? {
        statements.value(forKey: sql).map { Int(sqlite_nio_sqlite3_stmt_status($0.pointer, SQLITE_STMTSTATUS_REPREPARE, 0)) }
    }

    private func compiled(_ sql: String) throws -> OpaquePointer {
        if let kept = statements.value(forKey: sql) { return kept.pointer }
        var statement: OpaquePointer?
        let status = sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw lastError(status) }
        for evicted in statements.setValue(CompiledStatement(pointer: statement), forKey: sql, cost: 1) {
            sqlite_nio_sqlite3_finalize(evicted.value.pointer)
        }
        return statement
    }

    private func lastError(_ status: Int32) -> SQLiteEngineError {
        // With SQLITE_OPEN_EXRESCODE the status is already the extended code.
        SQLiteEngineError(code: status, message: String(cString: sqlite_nio_sqlite3_errmsg(handle)))
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(Int(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT:
            return .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            // The pointer first, then the length, as SQLite's documentation asks.
            let text = sqlite_nio_sqlite3_column_text(statement, column)
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: text == nil ? 0 : count), as: UTF8.self))
        case SQLITE_BLOB:
            let bytes = sqlite_nio_sqlite3_column_blob(statement, column)
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .blob(ByteBuffer(bytes: UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count)))
        default:
            return .null
        }
    }
}

/// A statement SQLite compiled, kept by ``SQLiteDirectConnection`` and used only under its lease.
private struct CompiledStatement: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// SQLite's "copy the bytes now" destructor (`SQLITE_TRANSIENT`, a macro Swift does not import).
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// An error SQLite reported: its extended result code and message.
struct SQLiteEngineError: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, ...).
    var primaryCode: Int32 { code & 0xff }

    // Extended result codes are macros Swift does not import.
    static let constraintUnique: Int32 = 2067
    static let constraintPrimaryKey: Int32 = 1555
    static let constraintForeignKey: Int32 = 787

    var description: String { "SQLite error \(code): \(message)" }
}

/// The column names of a statement's result, read once per execution and shared by its rows.
final class SQLiteColumnNames: Sendable {
    let names: [String]

    init(_ statement: OpaquePointer) {
        names = (0..<sqlite_nio_sqlite3_column_count(statement)).map { String(cString: sqlite_nio_sqlite3_column_name(statement, $0)) }
    }

    func index(of column: String) -> Int? { names.firstIndex(of: column) }
}

/// One row, read into memory before the next step.
struct SQLiteDirectRow: SQLRow {
    let columns: SQLiteColumnNames
    let values: [SQLiteData]

    /// One for all rows: each holds a JSON decoder, costly to make per value.
    private static let decoder = SQLiteDataDecoder()

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool { columns.index(of: column) != nil }

    func decodeNil(column: String) throws -> Bool {
        guard let index = columns.index(of: column) else { return true }
        return values[index] == .null
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let index = columns.index(of: column) else {
            throw DecodingError.keyNotFound(SQLiteColumnKey(stringValue: column), .init(codingPath: [], debugDescription: "no column \(column)"))
        }
        if let value = Self.direct(values[index], as: D.self) { return value }
        return try Self.decoder.decode(D.self, from: values[index])
    }

    /// The store's column types straight from their values: the decoder goes through `Decodable`, with a decoder per
    /// value (see ``PostgresStoreRow``). Anything else goes the decoder's way, errors included.
    private static func direct<D>(_ value: SQLiteData, as type: D.Type) -> D? {
        switch value {
        case .text(let text) where D.self == String.self: return text as? D
        case .integer(let integer) where D.self == Int64.self: return Int64(integer) as? D
        case .integer(let integer) where D.self == Int.self: return Int(integer) as? D
        case .blob(let buffer) where D.self == Data.self: return Data(buffer.readableBytesView) as? D
        case .float(let double) where D.self == Double.self: return double as? D
        default: return nil
        }
    }
}

private struct SQLiteColumnKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A connection as SQLKit's `SQLDatabase`: statements run at once on the calling thread, which the backend makes the
/// connection's own thread (``SQLiteThread``) except for short reads (``ReadExtent/rows``). The connection is opened
/// serialized (`SQLITE_OPEN_FULLMUTEX`) and leased to one task at a time, so any thread may drive it.
struct SQLiteDirectDatabase: SQLDatabase {
    let connection: SQLiteDirectConnection
    let logger: Logger

    var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { .trace }

    /// One for all statements: each holds a JSON encoder, costly to make per value.
    private static let encoder = SQLiteDataEncoder()

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try run(query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        do {
            try run(query, onRow)
            return eventLoop.makeSucceededVoidFuture()
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    private func run(_ query: any SQLExpression, _ onRow: (any SQLRow) -> Void) throws {
        let (sql, binds) = serialize(query)
        if logger.logLevel <= .trace {
            logger.trace("Executing query", metadata: ["sql": .string(sql), "binds": .array(binds.map { .string("\($0)") })])
        }
        try connection.execute(sql, binds.map(Self.value(of:))) { onRow($0) }
    }

    /// The store's commonest bind types straight to SQLite's values, as the encoder gives them: its cast of each value
    /// to `SQLiteDataConvertible`, a protocol conformance lookup, was most of its cost (0.7 % of the soak's server).
    private static func value(of bind: any Encodable) throws -> SQLiteData {
        switch bind {
        case let text as String: .text(text)
        case let integer as Int64: .integer(Int(integer))
        case let integer as Int: .integer(integer)
        default: try encoder.encode(bind)
        }
    }
}
