import Foundation
import SQLKit
import Testing

@testable import OrderPersistence

@Suite struct LifecycleStoreTests {
    @Test func reopeningKeepsEverythingAndDoesNotReapplyMigrations() async throws {
        let location = try TestStoreLocation()
        defer { location.cleanup() }

        let store = try await location.open()
        let fixture = try await Fixture.make(store)
        let hash = String(repeating: "0f", count: 32)
        try await store.addAPIKey(merchantID: fixture.merchant.id, keyHash: hash, prefix: "otk_0f")
        let order = try await store.createOrder(fixture.order("A"))
        _ = try await store.register(deviceLibraryIdentifier: "dev", pushToken: "tok", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
        try await store.putAsset(merchantID: fixture.merchant.id, name: "logo.png", contentType: "image/png", bytes: [7], sha256: "x")
        try await store.storePackage(type: fixture.orderType, id: "A", version: 1, bytes: [8])
        try await store.shutdown()
        try await store.shutdown() // a second shutdown is harmless
        await #expect(throws: OrderStoreError.storeClosed) { try await store.merchant(id: fixture.merchant.id) }
        await #expect(throws: OrderStoreError.storeClosed) { try await store.createMerchant(name: "late") }

        for _ in 0..<2 {
            let reopened = try await location.open()
            #expect(try await reopened.merchant(id: fixture.merchant.id) == fixture.merchant)
            #expect(try await reopened.merchant(forAPIKeyHash: hash) == fixture.merchant)
            #expect(try await reopened.orderType(fixture.orderType)?.identity == .directory(path: "/etc/ordertrack/identity"))
            #expect(try await reopened.order(type: fixture.orderType, id: "A") == order)
            #expect(try await reopened.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A").map(\.pushToken) == ["tok"])
            #expect(try await reopened.asset(merchantID: fixture.merchant.id, name: "logo.png")?.bytes == [7])
            #expect(try await reopened.cachedPackage(type: fixture.orderType, id: "A", version: 1) == [8])
            let versions = try await reopened.read("count migrations") { db in
                try await db.select().column("version").from("schema_migrations").all(decodingColumn: "version", as: Int.self)
            }
            #expect(versions == Migrations.all.map(\.version))
            try await reopened.shutdown()
        }

        // The change counter survives restarts: tags never repeat.
        let reopened = try await location.open()
        let next = try await reopened.createOrder(fixture.order("B"))
        #expect(next.changeSequence == order.changeSequence + 1)
        try await reopened.shutdown()
    }

    @Test func aDatabaseFromANewerOrdertrackIsRefused() async throws {
        let location = try TestStoreLocation()
        defer { location.cleanup() }
        let store = try await location.open()
        let future = SQLOrderStore.schemaVersion + 5
        try await store.write("pretend a newer ordertrack migrated") { db in
            try await db.insert(into: "schema_migrations").columns("version", "name", "applied_at")
                .values(future, "from the future", 0).run()
        }
        try await store.shutdown()

        await #expect(throws: OrderStoreError.schemaTooNew(databaseVersion: future, knownVersion: SQLOrderStore.schemaVersion)) {
            try await location.open()
        }
    }

    @Test func databaseFileUsesWriteAheadLogging() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try await SQLOrderStore.sqlite(path: directory.databasePath, masterKey: testMasterKey)
        let mode = try await store.read("read journal mode") { db in
            try await db.raw("PRAGMA journal_mode").first(decodingColumn: "journal_mode", as: String.self)
        }
        #expect(mode == "wal")
        let foreignKeys = try await store.read("read foreign keys") { db in
            try await db.raw("PRAGMA foreign_keys").first(decodingColumn: "foreign_keys", as: Int.self)
        }
        #expect(foreignKeys == 1)
        #expect(FileManager.default.fileExists(atPath: directory.databasePath))
        try await store.shutdown()
    }

    @Test func unopenablePathsFailWithTheirPath() async throws {
        let path = "/nonexistent-dir-\(UUID().uuidString)/db.sqlite"
        do {
            _ = try await SQLOrderStore.sqlite(path: path, masterKey: testMasterKey)
            Issue.record("opening \(path) should fail")
        } catch let OrderStoreError.openFailed(failedPath, _) {
            #expect(failedPath == path)
        }
    }

    @Test func inMemoryStoreWorks() async throws {
        let store = try await SQLOrderStore.inMemory()
        let fixture = try await Fixture.make(store)
        try await store.createOrder(fixture.order("A"))
        #expect(try await store.order(type: fixture.orderType, id: "A")?.version == 1)
        try await store.shutdown()
    }
}
