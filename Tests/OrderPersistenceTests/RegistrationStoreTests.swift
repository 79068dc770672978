import Foundation
import TestSupport
import Testing

@testable import OrderPersistence

@Suite struct RegistrationStoreTests {
    /// Two store instances on one database (two server instances on one PostgreSQL when the suite runs there) register
    /// 60 devices of one order at once: exactly the cap is stored, the rest refused, and known devices still refresh.
    @Test func m5_registrationCapHoldsAcrossInstancesUnderConcurrency() async throws {
        let location = try TestStoreLocation()
        defer { location.cleanup() }
        let first = try await location.open()
        let second = try await location.open()
        do {
            let fixture = try await Fixture.make(first)
            try await first.createOrder(fixture.order("A"))
            let cap = 7
            let outcomes = try await withThrowingTaskGroup(of: RegistrationOutcome.self) { group in
                for index in 0..<60 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        try await store.register(
                            deviceLibraryIdentifier: "dev\(index)", pushToken: "tok\(index)", orderTypeIdentifier: fixture.orderType,
                            orderIdentifier: "A", walletLinkID: nil, maximumPerOrder: cap)
                    }
                }
                return try await group.reduce(into: [RegistrationOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .created }.count == cap)
            #expect(outcomes.filter { $0 == .limitReached(maximum: cap) }.count == 60 - cap)
            let registered = try await second.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
            #expect(registered.count == cap)
            // A registered device is not counted against the cap when it registers again, with a new token or not.
            let known = try #require(registered.first)
            #expect(
                try await second.register(
                    deviceLibraryIdentifier: known.deviceLibraryIdentifier, pushToken: "rotated", orderTypeIdentifier: fixture.orderType,
                    orderIdentifier: "A", walletLinkID: nil, maximumPerOrder: cap) == .alreadyRegistered(pushTokenReplaced: true))
            #expect(
                try await first.register(
                    deviceLibraryIdentifier: "late", pushToken: "late", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A",
                    walletLinkID: nil, maximumPerOrder: cap) == .limitReached(maximum: cap))
            try await first.shutdown()
            try await second.shutdown()
        } catch {
            try? await first.shutdown()
            try? await second.shutdown()
            throw error
        }
    }

    @Test func registerReportsCreationAndTokenRotation() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            try await store.createOrder(fixture.order("A"))
            let type = fixture.orderType

            #expect(
                try await store.register(deviceLibraryIdentifier: "dev1", pushToken: "tok1", orderTypeIdentifier: type, orderIdentifier: "A")
                    == .created)
            #expect(
                try await store.register(deviceLibraryIdentifier: "dev1", pushToken: "tok1", orderTypeIdentifier: type, orderIdentifier: "A")
                    == .alreadyRegistered(pushTokenReplaced: false))
            #expect(
                try await store.register(deviceLibraryIdentifier: "dev1", pushToken: "tok2", orderTypeIdentifier: type, orderIdentifier: "A")
                    == .alreadyRegistered(pushTokenReplaced: true))
            #expect(
                try await store.register(deviceLibraryIdentifier: "dev2", pushToken: "tok3", orderTypeIdentifier: type, orderIdentifier: "A")
                    == .created)

            let registrations = try await store.registrations(orderTypeIdentifier: type, orderIdentifier: "A")
            #expect(registrations.map(\.deviceLibraryIdentifier) == ["dev1", "dev2"])
            #expect(registrations.map(\.pushToken) == ["tok2", "tok3"])

            await #expect(throws: OrderStoreError.orderNotFound(orderTypeIdentifier: type, orderIdentifier: "missing")) {
                try await store.register(deviceLibraryIdentifier: "dev1", pushToken: "tok1", orderTypeIdentifier: type, orderIdentifier: "missing")
            }

            #expect(try await store.unregister(deviceLibraryIdentifier: "dev1", orderTypeIdentifier: type, orderIdentifier: "A"))
            #expect(try await store.unregister(deviceLibraryIdentifier: "dev1", orderTypeIdentifier: type, orderIdentifier: "A") == false)
            #expect(try await store.registrations(orderTypeIdentifier: type, orderIdentifier: "A").map(\.deviceLibraryIdentifier) == ["dev2"])
        }
    }

    @Test func changedAfterReturnsExactlyTheChangedOrders() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let type = fixture.orderType
            for id in ["A", "B", "C", "D"] {
                try await store.createOrder(fixture.order(id))
            }
            for id in ["A", "B", "C"] {
                _ = try await store.register(deviceLibraryIdentifier: "dev", pushToken: "tok", orderTypeIdentifier: type, orderIdentifier: id)
            }
            // D changes but the device is not registered for it; another device's registration must not leak.
            _ = try await store.register(deviceLibraryIdentifier: "other", pushToken: "tok", orderTypeIdentifier: type, orderIdentifier: "D")

            let all = try #require(
                try await store.registeredOrderIdentifiers(deviceLibraryIdentifier: "dev", orderTypeIdentifier: type, changedAfter: nil))
            #expect(all.orderIdentifiers == ["A", "B", "C"])
            #expect(all.lastChange == 3)
            #expect(
                try await store.registeredOrderIdentifiers(deviceLibraryIdentifier: "dev", orderTypeIdentifier: type, changedAfter: all.lastChange)
                    == nil)

            let updatedC = try await store.updateOrder(
                type: type, id: "C", expectedVersion: 1, document: [1], status: nil, orderNumber: nil, updatedAt: Date())
            _ = try await store.updateOrder(type: type, id: "D", expectedVersion: 1, document: [1], status: nil, orderNumber: nil, updatedAt: Date())
            let updatedA = try await store.updateOrder(
                type: type, id: "A", expectedVersion: 1, document: [1], status: nil, orderNumber: nil, updatedAt: Date())

            let changed = try #require(
                try await store.registeredOrderIdentifiers(deviceLibraryIdentifier: "dev", orderTypeIdentifier: type, changedAfter: all.lastChange))
            #expect(changed.orderIdentifiers == ["C", "A"])
            #expect(changed.lastChange == updatedA.changeSequence)
            let afterC = try #require(
                try await store.registeredOrderIdentifiers(
                    deviceLibraryIdentifier: "dev", orderTypeIdentifier: type, changedAfter: updatedC.changeSequence))
            #expect(afterC.orderIdentifiers == ["A"])
            #expect(
                try await store.registeredOrderIdentifiers(deviceLibraryIdentifier: "dev", orderTypeIdentifier: "order.com.other", changedAfter: nil)
                    == nil)
            #expect(
                try await store.registeredOrderIdentifiers(deviceLibraryIdentifier: "nobody", orderTypeIdentifier: type, changedAfter: nil) == nil)
        }
    }

    @Test func deletingByPushTokenHonoursTheRegistrationTime() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let type = fixture.orderType
            for id in ["A", "B", "C"] {
                try await store.createOrder(fixture.order(id))
            }
            _ = try await store.register(deviceLibraryIdentifier: "dev", pushToken: "dead", orderTypeIdentifier: type, orderIdentifier: "A")
            _ = try await store.register(deviceLibraryIdentifier: "dev", pushToken: "dead", orderTypeIdentifier: type, orderIdentifier: "B")
            _ = try await store.register(deviceLibraryIdentifier: "dev2", pushToken: "alive", orderTypeIdentifier: type, orderIdentifier: "C")

            let longAgo = Date(timeIntervalSince1970: 1_000_000)
            #expect(try await store.deleteRegistrations(pushToken: "dead", registeredBefore: longAgo) == 0)
            #expect(try await store.deleteRegistrations(pushToken: "dead", registeredBefore: Date().addingTimeInterval(60)) == 2)
            #expect(try await store.deleteRegistrations(pushToken: "dead", registeredBefore: nil) == 0)
            #expect(try await store.deleteRegistrations(pushToken: "alive", registeredBefore: nil) == 1)
            #expect(try await store.registeredOrderIdentifiers(deviceLibraryIdentifier: "dev", orderTypeIdentifier: type, changedAfter: nil) == nil)
        }
    }

    @Test func reregistrationRefreshesTheRegistrationTime() async throws {
        let clock = TestClock()
        try await withStore(now: { clock.date }) { store, _ in
            let fixture = try await Fixture.make(store)
            try await store.createOrder(fixture.order("A"))
            let before = milliseconds(clock.date)
            _ = try await store.register(
                deviceLibraryIdentifier: "dev", pushToken: "tok", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
            let first = try #require(try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A").first)
            #expect(first.registeredAt >= before)

            // APNs reports the token invalid at `rejectedAt`; the device then registers the same token again.
            clock.advance(by: .milliseconds(5))
            let rejectedAt = clock.date
            clock.advance(by: .milliseconds(5))
            _ = try await store.register(
                deviceLibraryIdentifier: "dev", pushToken: "tok", orderTypeIdentifier: fixture.orderType, orderIdentifier: "A")
            let second = try #require(try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A").first)
            #expect(second.registeredAt > rejectedAt)
            #expect(try await store.deleteRegistrations(pushToken: "tok", registeredBefore: rejectedAt) == 0)
            #expect(try await store.registrations(orderTypeIdentifier: fixture.orderType, orderIdentifier: "A").count == 1)
        }
    }
}
