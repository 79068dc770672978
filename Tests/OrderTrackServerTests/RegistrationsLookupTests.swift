import Foundation
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderPersistence
@testable import OrderTrackServer

/// Devices' registration lists kept in memory on PostgreSQL (issue #18): served without a database read, the same
/// answer as the store's for any tag, and dropped when another instance changes a registration or an order in them.
@Suite(.serialized) struct RegistrationsLookupTests {
    static let type = "order.com.example.shop"
    static let device = "device-1"

    /// Two stores on one fresh PostgreSQL schema: `here` (this instance's) and `other` (another instance's), with orders
    /// A to F and the device registered for A.
    struct Database {
        var here: SQLOrderStore
        var other: SQLOrderStore
        var merchantID: String

        static func open() async throws -> Database {
            let url = try TestDatabase.freshPostgresURL()
            let here = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
            let other = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: url), masterKey: testMasterKey)
            let merchant = try await other.createMerchant(name: "Shop")
            try await other.upsertOrderType(OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: .directory(path: "/x")))
            for id in ["A", "B", "C", "D", "E", "F"] {
                var record = OrderRecordCacheTests.record(id, documentBytes: 10)
                record.merchantID = merchant.id
                try await other.createOrder(record)
            }
            let database = Database(here: here, other: other, merchantID: merchant.id)
            try await database.register(id: "A")
            return database
        }

        /// Registers the device through the other instance.
        func register(id: String) async throws {
            _ = try await other.register(deviceLibraryIdentifier: device, pushToken: "token", orderTypeIdentifier: type, orderIdentifier: id)
        }

        /// Changes an order through the other instance; returns the new record.
        @discardableResult
        func change(id: String) async throws -> OrderRecord {
            let current = try #require(try await other.order(type: type, id: id))
            return try await other.updateOrder(
                type: type, id: id, expectedVersion: current.version, document: Array("{\"v\":\(current.version)}".utf8), status: nil,
                orderNumber: nil, renumberedFor: nil, updatedAt: Date(), note: ChangeNote(author: "other instance"), authenticationToken: nil)
        }

        func shutdown() async throws {
            try await here.shutdown()
            try await other.shutdown()
        }
    }

    static func list(_ lookup: RegistrationsLookup, after tag: Int64? = nil) async throws -> [String] {
        try await lookup.changedOrders(device: device, orderTypeIdentifier: type, after: tag)?.orderIdentifiers ?? []
    }

    /// Changes the other instance commits are seen only when announced: the lookup answers from memory until then.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func listsAreKeptOnlyWhileFollowingAndDroppedByAnnouncements() async throws {
        let database = try await Database.open()
        let lookup = RegistrationsLookup(store: database.here, isExclusive: false)

        // Not following yet: every list is read from the database.
        #expect(try await Self.list(lookup) == ["A"])
        try await database.register(id: "B")
        #expect(try await Self.list(lookup) == ["A", "B"])

        lookup.handle(.following)
        #expect(try await Self.list(lookup) == ["A", "B"])
        try await database.register(id: "C")
        #expect(try await Self.list(lookup) == ["A", "B"], "served from memory: the registration was not announced")
        lookup.handle(.registrations(orderTypeIdentifier: Self.type, deviceLibraryIdentifier: "another-device"))
        #expect(try await Self.list(lookup) == ["A", "B"], "another device's registration does not drop this list")
        lookup.handle(.registrations(orderTypeIdentifier: Self.type, deviceLibraryIdentifier: Self.device))
        #expect(try await Self.list(lookup) == ["A", "B", "C"])
        // The same answer as the store's for every tag, from the kept list.
        let sequences = try await database.here.registeredOrders(deviceLibraryIdentifier: Self.device, orderTypeIdentifier: Self.type)
            .map(\.changeSequence)
        let tags: [Int64?] = [nil, 0, .max] + sequences.flatMap { [$0 - 1, $0] }.map(Optional.some)
        for tag in tags {
            let stored = try await database.here.registeredOrderIdentifiers(
                deviceLibraryIdentifier: Self.device, orderTypeIdentifier: Self.type, changedAfter: tag)
            #expect(try await lookup.changedOrders(device: Self.device, orderTypeIdentifier: Self.type, after: tag) == stored)
        }

        // A changed order moves to the end of the list: a list containing it is dropped, one without it is kept.
        let tag = try #require(try await lookup.changedOrders(device: Self.device, orderTypeIdentifier: Self.type, after: nil)).lastChange
        try await database.change(id: "D")
        lookup.handle(.order(orderTypeIdentifier: Self.type, orderIdentifier: "D"))
        try await database.change(id: "A")
        #expect(try await Self.list(lookup, after: tag).isEmpty, "D is not in the list; A's change was not announced")
        lookup.handle(.order(orderTypeIdentifier: Self.type, orderIdentifier: "A"))
        #expect(try await Self.list(lookup, after: tag) == ["A"])
        #expect(try await Self.list(lookup) == ["B", "C", "A"])

        // An order type's announcement drops its lists.
        try await database.register(id: "D")
        lookup.handle(.orderType(orderTypeIdentifier: "order.com.example.other"))
        #expect(try await Self.list(lookup) == ["B", "C", "A"])
        lookup.handle(.orderType(orderTypeIdentifier: Self.type))
        #expect(try await Self.list(lookup) == ["B", "C", "D", "A"], "in the order of their changes")

        // Interrupted: everything is dropped and nothing kept until following resumes.
        lookup.handle(.interrupted(reason: "connection lost"))
        try await database.register(id: "E")
        #expect(try await Self.list(lookup) == ["B", "C", "E", "D", "A"])
        try await database.register(id: "F")
        #expect(try await Self.list(lookup) == ["B", "C", "E", "F", "D", "A"])
        try await database.shutdown()
    }

    /// Lists stay within their bytes, and the index by order follows evictions: a list kept again after its eviction is
    /// still dropped when an order in it is announced. (Any database behaves the same here; the in-memory one is fast.)
    @Test func listsStayWithinTheirBytesAndEvictionsKeepTheIndexByOrder() async throws {
        let store = try await SQLOrderStore.inMemory()
        let merchant = try await store.createMerchant(name: "Shop")
        try await store.upsertOrderType(OrderTypeRecord(orderTypeIdentifier: Self.type, merchantID: merchant.id, identity: .directory(path: "/x")))
        var record = OrderRecordCacheTests.record("A", documentBytes: 10)
        record.merchantID = merchant.id
        var order = try await store.createOrder(record)
        for index in 0..<100 {
            _ = try await store.register(
                deviceLibraryIdentifier: "device-\(index)", pushToken: "t", orderTypeIdentifier: Self.type, orderIdentifier: "A")
        }
        let lookup = RegistrationsLookup(store: store, isExclusive: false, capacityBytes: 4096)
        lookup.handle(.following)
        func list(_ index: Int, after tag: Int64? = nil) async throws -> [String] {
            try await lookup.changedOrders(device: "device-\(index)", orderTypeIdentifier: Self.type, after: tag)?.orderIdentifiers ?? []
        }
        for index in 0..<100 {
            #expect(try await list(index) == ["A"])
            #expect(lookup.cachedBytes <= 4096)
        }
        // Device 0's list was evicted long ago: read and kept again, then dropped by A's announcement.
        #expect(try await list(0, after: order.changeSequence).isEmpty)
        order = try await store.updateOrder(
            type: Self.type, id: "A", expectedVersion: order.version, document: Array("{}".utf8), status: nil, orderNumber: nil,
            renumberedFor: nil, updatedAt: Date(), note: ChangeNote(author: "other instance"), authenticationToken: nil)
        #expect(try await list(0, after: order.changeSequence - 1).isEmpty, "kept: the change was not announced yet")
        lookup.handle(.order(orderTypeIdentifier: Self.type, orderIdentifier: "A"))
        #expect(try await list(0, after: order.changeSequence - 1) == ["A"])
        try await store.shutdown()
    }

    /// A list read while a change was announced may predate that change: it is not kept.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aReadThatOverlappedAnAnnouncementIsNotKept() async throws {
        let database = try await Database.open()
        let lookup = RegistrationsLookup(store: database.here, isExclusive: false)
        lookup.handle(.following)

        // The other instance holds the registrations table, so this lookup's read waits until the test lets it go.
        let (released, release) = AsyncStream<Void>.makeStream()
        let locked = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await database.other.write("hold the registrations table") { db in
                try await db.raw("LOCK TABLE registrations IN ACCESS EXCLUSIVE MODE").run()
                locked.continuation.finish()
                for await _ in released {}
            }
        }
        for await _ in locked.stream {}
        let reading = Task { try await Self.list(lookup) }
        try await Poll.expect(within: .seconds(10)) {
            try await database.other.read("count waiting reads") { db in
                try await db.raw(
                    "SELECT count(*) AS waiting FROM pg_locks WHERE NOT granted AND relation = 'registrations'::regclass"
                ).first(decodingColumn: "waiting", as: Int.self) ?? 0
            } > 0
        }
        lookup.handle(.order(orderTypeIdentifier: Self.type, orderIdentifier: "an order of another device"))
        release.finish()
        try await holder.value
        #expect(try await reading.value == ["A"])

        // Had the read been kept, this unannounced registration would not be seen.
        try await database.register(id: "B")
        #expect(try await Self.list(lookup) == ["A", "B"])
        try await database.shutdown()
    }

    /// Changes announced by PostgreSQL on behalf of another instance reach a lookup following the store; this
    /// instance's own writes drop its lists at once, before PostgreSQL's announcement.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func announcementsOfAnotherInstanceAndOwnWritesDropLists() async throws {
        let database = try await Database.open()
        let lookup = RegistrationsLookup(store: database.here, isExclusive: false)
        let (followed, following) = AsyncStream<Void>.makeStream()
        let follower = Task {
            try await database.here.followChanges { event in
                lookup.handle(event)
                if event == .following { following.yield() }
            }
        }
        var followedEvents = followed.makeAsyncIterator()
        _ = await followedEvents.next()

        // The list is kept (see above); each change through the other instance shows up by its announcement.
        #expect(try await Self.list(lookup) == ["A"])
        try await database.register(id: "B")
        try await Poll.expect(within: .seconds(10)) { try await Self.list(lookup) == ["A", "B"] }
        let tag = try #require(try await lookup.changedOrders(device: Self.device, orderTypeIdentifier: Self.type, after: nil)).lastChange
        #expect(try await Self.list(lookup, after: tag).isEmpty)
        try await database.change(id: "A")
        try await Poll.expect(within: .seconds(10)) { try await Self.list(lookup, after: tag) == ["A"] }
        _ = try await database.other.unregister(deviceLibraryIdentifier: Self.device, orderTypeIdentifier: Self.type, orderIdentifier: "B")
        try await Poll.expect(within: .seconds(10)) { try await Self.list(lookup) == ["A"] }
        follower.cancel()
        _ = try? await follower.value

        // This instance's own writes, with no announcement delivered: the device's next list here includes them.
        let own = RegistrationsLookup(store: database.here, isExclusive: false)
        own.handle(.following)
        let devices = DeviceService(store: database.here, registrations: own, maximumRegistrationsPerOrder: nil)
        let caches = CachedCopies(orders: OrderRecordCache(store: database.here, isExclusive: false), registrations: own)
        #expect(try await Self.list(own) == ["A"])
        let order = try #require(try await database.here.order(type: Self.type, id: "C"))
        _ = try await devices.register(device: Self.device, pushToken: "token", for: DeviceAuthorization(order: order))
        #expect(try await Self.list(own) == ["C", "A"])
        try await devices.unregister(device: Self.device, from: order)
        #expect(try await Self.list(own) == ["A"])
        let ownTag = try #require(try await own.changedOrders(device: Self.device, orderTypeIdentifier: Self.type, after: nil)).lastChange
        caches.orderWritten(try await database.change(id: "A"))
        #expect(try await Self.list(own, after: ownTag) == ["A"])
        try await database.shutdown()
    }
}
