import Foundation
import Logging
import OrderPersistence
import Synchronization
import Testing

@testable import OrderTrackServer

@Suite struct CredentialProviderTests {
    /// The store's order types, counting the reads of one.
    final class CountingOrderTypes: OrderTypeStore {
        let store: SQLOrderStore
        private let count = Mutex(0)
        /// Runs inside each read, before the store answers.
        private let beforeRead: @Sendable () async -> Void
        var reads: Int { count.withLock { $0 } }

        init(store: SQLOrderStore, beforeRead: @escaping @Sendable () async -> Void = {}) {
            self.store = store
            self.beforeRead = beforeRead
        }

        func orderType(_ orderTypeIdentifier: String) async throws -> OrderTypeRecord? {
            count.withLock { $0 += 1 }
            await beforeRead()
            return try await store.orderType(orderTypeIdentifier)
        }
        func upsertOrderType(_ record: OrderTypeRecord) async throws { try await store.upsertOrderType(record) }
        func orderTypes(merchantID: String) async throws -> [OrderTypeRecord] { try await store.orderTypes(merchantID: merchantID) }
        func defaultOrderType(merchantID: String) async throws -> String? { try await store.defaultOrderType(merchantID: merchantID) }
        func setDefaultOrderType(merchantID: String, orderTypeIdentifier: String) async throws {
            try await store.setDefaultOrderType(merchantID: merchantID, orderTypeIdentifier: orderTypeIdentifier)
        }
        func deleteOrderType(_ orderTypeIdentifier: String, merchantID: String, force: Bool) async throws -> DeletionSummary {
            try await store.deleteOrderType(orderTypeIdentifier, merchantID: merchantID, force: force)
        }
        func putOrderDefaults(_ record: MerchantOrderDefaultsRecord) async throws { try await store.putOrderDefaults(record) }
        func orderDefaults(merchantID: String, orderTypeIdentifier: String?) async throws -> [MerchantOrderDefaultsRecord] {
            try await store.orderDefaults(merchantID: merchantID, orderTypeIdentifier: orderTypeIdentifier)
        }
    }

    /// On a shared database a configuration is read once while its changes are announced, and again after an
    /// announcement of its order type or an interruption of the feed; otherwise on every request.
    @Test(arguments: [true, false])
    func aConfigurationIsKeptOnlyWhileItsChangesAreAnnounced(sharedDatabase: Bool) async throws {
        let store = try await SQLOrderStore.inMemory()
        defer { Task { try? await store.shutdown() } }
        let type = "order.com.example.kept"
        let merchant = try await store.createMerchant(name: "Shop")
        let first = try OrderTypeOwnershipTests.developmentIdentity(type)
        let second = try OrderTypeOwnershipTests.developmentIdentity(type)
        try await store.upsertOrderType(OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: first))
        let counting = CountingOrderTypes(store: store)
        let provider = CredentialProvider(
            store: counting, cpu: CPUWorkPool(threadCount: 1), logger: Logger(label: "test"), keepsConfigurations: sharedDatabase)
        let firstCertificate = try await provider.identity(for: type).certificate
        _ = try await provider.identity(for: type)
        #expect(counting.reads == 2, "read on every request before the feed follows")

        provider.followingChanges(true)
        _ = try await provider.identity(for: type)
        _ = try await provider.identity(for: type)
        #expect(counting.reads == (sharedDatabase ? 3 : 4))

        // Another instance rotates the certificate; the announcement reaches this one a moment later.
        try await store.upsertOrderType(OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: second))
        let beforeAnnouncement = try await provider.identity(for: type).certificate
        #expect(beforeAnnouncement == firstCertificate || !sharedDatabase)
        provider.invalidate(type)
        let rotated = try await provider.identity(for: type).certificate
        #expect(rotated != firstCertificate)
        _ = try await provider.identity(for: type)
        #expect(counting.reads == (sharedDatabase ? 4 : 7))

        // An interruption: changes may be missed, so every request reads again.
        provider.followingChanges(false)
        _ = try await provider.identity(for: type)
        _ = try await provider.identity(for: type)
        #expect(counting.reads == (sharedDatabase ? 6 : 9))
    }

    /// A read that began before the feed followed may predate a change made before `LISTEN` was in place, which no
    /// announcement will drop: it is used once, not kept.
    @Test func aReadThatBeganBeforeFollowingIsNotKept() async throws {
        let store = try await SQLOrderStore.inMemory()
        defer { Task { try? await store.shutdown() } }
        let type = "order.com.example.early"
        let merchant = try await store.createMerchant(name: "Shop")
        try await store.upsertOrderType(
            OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: try OrderTypeOwnershipTests.developmentIdentity(type)))
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let first = Mutex(true)
        let counting = CountingOrderTypes(store: store) {
            let isFirst = first.withLock { isFirst in
                defer { isFirst = false }
                return isFirst
            }
            guard isFirst else { return }
            start.yield()
            for await _ in released { return }
        }
        let provider = CredentialProvider(store: counting, cpu: CPUWorkPool(threadCount: 1), logger: Logger(label: "test"), keepsConfigurations: true)
        let early = Task { try await provider.identity(for: type) }
        for await _ in started { break }
        provider.followingChanges(true)
        release.yield()
        _ = try await early.value
        _ = try await provider.identity(for: type)
        _ = try await provider.identity(for: type)
        #expect(counting.reads == 2, "the early read was not kept; the one after following began was")
    }
}
