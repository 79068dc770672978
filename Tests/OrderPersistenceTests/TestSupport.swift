import Foundation
import Synchronization
import TestSupport
import Testing

@testable import OrderPersistence

/// A fresh directory under the system temp dir, removed by `cleanup()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("orderstore-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var databasePath: String { url.appendingPathComponent("ordertrack.sqlite").path }

    func cleanup() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// One test's database, which the test may open several times: a new SQLite file, or a new PostgreSQL schema
/// when the suite runs on PostgreSQL (`ORDERTRACK_TEST_STORE=postgres`).
struct TestStoreLocation {
    let directory: TemporaryDirectory
    let postgresURL: String?

    init() throws {
        directory = try TemporaryDirectory()
        postgresURL = try TestDatabase.storeURL()
    }

    func open(masterKey: MasterKey = testMasterKey, readerCount: Int = 4, now: @escaping @Sendable () -> Date = Date.init) async throws
        -> SQLOrderStore
    {
        if let postgresURL {
            return try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: postgresURL), masterKey: masterKey, now: now)
        }
        return try await SQLOrderStore.sqlite(path: directory.databasePath, masterKey: masterKey, readerCount: readerCount, now: now)
    }

    func cleanup() {
        directory.cleanup()
    }
}

/// Opens a store on the test database with the clock `now`, runs `body`, shuts the store down and removes its files.
func withStore<T>(
    readerCount: Int = 4, now: @escaping @Sendable () -> Date = Date.init, _ body: (SQLOrderStore, TemporaryDirectory) async throws -> T
) async throws -> T {
    let location = try TestStoreLocation()
    defer { location.cleanup() }
    let store = try await location.open(readerCount: readerCount, now: now)
    do {
        let result = try await body(store, location.directory)
        try await store.shutdown()
        return result
    } catch {
        try? await store.shutdown()
        throw error
    }
}

/// A merchant with one order type, ready for orders.
struct Fixture {
    let merchant: MerchantRecord
    let orderType: String

    static func make(_ store: SQLOrderStore, orderType: String = "order.com.example.shop") async throws -> Fixture {
        let merchant = try await store.createMerchant(name: "Example Shop")
        try await store.upsertOrderType(
            OrderTypeRecord(
                orderTypeIdentifier: orderType, merchantID: merchant.id, identity: .directory(path: "/etc/ordertrack/identity")
            ))
        return Fixture(merchant: merchant, orderType: orderType)
    }

    func order(_ id: String, status: String? = "open", document: String = #"{"status":"open"}"#, at date: Date = Date()) -> OrderRecord {
        OrderRecord(
            orderTypeIdentifier: orderType, orderIdentifier: id, merchantID: merchant.id,
            authenticationToken: "token-\(id)-0123456789abcdef", document: Array(document.utf8), status: status,
            createdAt: date, updatedAt: date
        )
    }
}

/// Truncates to the millisecond precision the store keeps.
func milliseconds(_ date: Date) -> Date {
    Date(millisecondsSince1970: date.millisecondsSince1970)
}

/// The master key of every store this test target opens directly.
let testMasterKey = MasterKey.generate()

/// A value a test's tasks set and the test reads.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }
    func update(_ change: (inout Value) -> Void) { storage.withLock { change(&$0) } }
}
