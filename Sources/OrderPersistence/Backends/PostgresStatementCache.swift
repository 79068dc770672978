import PostgresKit
import Synchronization

/// The store's statements as PostgreSQL prepared statements: parsed and planned once per connection, then only bound
/// and executed.
///
/// Sent unnamed, PostgreSQL parses and plans every statement again; for the registrations list at 1,000,000 rows that
/// took 0.26 ms of planning for 0.07 ms of execution, and `pgbench` ran the same query at 0.17 ms prepared against 0.45
/// ms unnamed. PostgresNIO prepares only statements whose SQL and name are static members of a type
/// (`PostgresPreparedStatement`), while SQLKit builds the store's SQL at run time. So each distinct statement gets a
/// slot, and a slot is a type (``StatementSlot``, spelled in binary digits) whose static members read the slot's SQL
/// from this cache. A slot keeps its SQL for the process's life, so a name means one statement on every connection.
///
/// Only what repeats is prepared: a statement gets a slot the second time it is seen, and only `SELECT`, `INSERT`,
/// `UPDATE`, `DELETE` and `WITH` statements whose binds PostgresNIO encodes directly, outside migrations. Slots are
/// bounded, as statements that differ by the length of a list of binds would otherwise grow the server's memory on
/// every connection; past the bound a statement runs unnamed, as before. The store's own statements, with their
/// variants, took about 260 slots in a run of the test suites, which use every feature; the bound is that of Rails'
/// statement cache, and a connection prepares only what it runs.
final class PostgresStatementCache: Sendable {
    /// One statement and the parameter types it is prepared with (the binds' types, so a statement bound with `NULL`
    /// once and with a value later is two statements, each typed as sent unnamed).
    struct Key: Hashable, Sendable {
        var sql: String
        var types: [PostgresDataType]
    }

    struct Entry: Sendable {
        var name: String
        var key: Key
        var slot: any StatementSlot.Type
    }

    private struct State: Sendable {
        var slots: [Key: Int] = [:]
        var entries: [Entry] = []
        /// Statements seen once; cleared when full, so it only delays a statement's slot.
        var seen: Set<Key> = []
    }

    /// The process's statements; one cache for every store, as slots are types and types are global.
    static let shared = PostgresStatementCache(capacity: 1024)

    static let maximumBinds = 64
    private static let seenCapacity = 4096

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The prepared statement for `key`, or `nil` to send it unnamed (not a data statement, too many binds, seen for
    /// the first time, or no slot left). A statement with a slot skips the other checks: they passed when it got it.
    func entry(for key: Key) -> Entry? {
        state.withLock { state in
            if let index = state.slots[key] { return state.entries[index] }
            guard state.entries.count < capacity, key.types.count <= Self.maximumBinds, Self.isPreparable(key.sql) else { return nil }
            guard state.seen.remove(key) != nil else {
                if state.seen.count >= Self.seenCapacity { state.seen.removeAll(keepingCapacity: true) }
                state.seen.insert(key)
                return nil
            }
            let index = state.entries.count
            let entry = Entry(name: "ordertrack_\(index)", key: key, slot: Self.slotType(index))
            state.entries.append(entry)
            state.slots[key] = index
            return entry
        }
    }

    /// How many statements have a slot (tests).
    var count: Int { state.withLock { $0.entries.count } }

    fileprivate func entry(at index: Int) -> Entry {
        state.withLock { $0.entries[index] }
    }

    /// Whether PostgreSQL plans the statement (a data statement), as opposed to a transaction or session command.
    static func isPreparable(_ sql: some StringProtocol) -> Bool {
        let word = sql.utf8.lazy.drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "(") })
            .prefix(while: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") })
        let upper = String(decoding: word.map { $0 & ~0x20 }, as: UTF8.self)
        return ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains(upper)
    }

    /// `binds` as PostgresNIO sends them, with their types; `nil` when one needs PostgresKit's slower encodings (arrays
    /// through `Encodable`, JSON), which the unnamed path keeps.
    static func bindings(_ binds: [any Encodable & Sendable]) throws -> (PostgresBindings, [PostgresDataType])? {
        var bindings = PostgresBindings(capacity: binds.count)
        var types: [PostgresDataType] = []
        types.reserveCapacity(binds.count)
        for bind in binds {
            guard let type = try append(bind, to: &bindings) else { return nil }
            types.append(type)
        }
        return (bindings, types)
    }

    /// Appends one bind as PostgresKit's fast path does (`PostgresDataTranslation`): `nil` as NULL, a
    /// `PostgresEncodable` value directly.
    private static func append<Value: Encodable>(_ value: Value, to bindings: inout PostgresBindings) throws -> PostgresDataType? {
        if let optional = value as? any OptionalBind, optional.isNone {
            bindings.appendNull()
            return .null
        }
        guard let encodable = value as? any PostgresThrowingDynamicTypeEncodable else { return nil }
        try bindings.append(encodable, context: .default)
        return encodable.psqlType
    }

    /// The slot type of `index`: its binary digits after a leading one, so any index is a type of a few levels.
    private static func slotType(_ index: Int) -> any StatementSlot.Type {
        let number = index + 1
        var type: any StatementSlot.Type = SlotOne.self
        for bit in stride(from: Int.bitWidth - number.leadingZeroBitCount - 2, through: 0, by: -1) {
            type = (number >> bit) & 1 == 0 ? appendingZero(type) : appendingOne(type)
        }
        return type
    }

    private static func appendingZero<High: StatementSlot>(_: High.Type) -> any StatementSlot.Type { SlotZero<High>.self }
    private static func appendingOne<High: StatementSlot>(_: High.Type) -> any StatementSlot.Type { SlotOneMore<High>.self }
}

/// Tells a `nil` bind from a value (a dynamic cast to a protocol sees through `Optional.some` but not `.none`).
private protocol OptionalBind {
    var isNone: Bool { get }
}

extension Optional: OptionalBind {
    var isNone: Bool { self == nil }
}

/// A slot of ``PostgresStatementCache``: the binary digits of its index plus one, as nested types.
protocol StatementSlot: Sendable {
    static var number: Int { get }
}

enum SlotOne: StatementSlot {
    static var number: Int { 1 }
}

enum SlotZero<High: StatementSlot>: StatementSlot {
    static var number: Int { High.number &* 2 }
}

enum SlotOneMore<High: StatementSlot>: StatementSlot {
    static var number: Int { High.number &* 2 &+ 1 }
}

/// One execution of a slot's statement; rows come back as PostgresNIO's.
struct SlotStatement<Slot: StatementSlot>: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static var entry: PostgresStatementCache.Entry { PostgresStatementCache.shared.entry(at: Slot.number - 1) }
    static var name: String { entry.name }
    static var sql: String { entry.key.sql }
    static var bindingDataTypes: [PostgresDataType] { entry.key.types }

    var bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

extension PostgresConnection {
    /// Runs the statement of `slot` with `bindings`, preparing it on this connection the first time.
    func execute<Slot: StatementSlot>(
        slot: Slot.Type, bindings: PostgresBindings, logger: Logger, _ onRow: (PostgresRow) -> Void
    ) async throws {
        for try await row in try await execute(SlotStatement<Slot>(bindings: bindings), logger: logger) {
            onRow(row)
        }
    }
}
