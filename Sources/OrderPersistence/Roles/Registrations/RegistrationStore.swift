import Foundation

/// The devices registered for orders' updates, as the Wallet web service and the caches read them.
///
/// All methods throw ``OrderStoreError``.
public protocol RegistrationStore: Sendable {
    /// Registers a device for pushes of an order, replacing its push token if it changed; a new device is refused
    /// with ``RegistrationOutcome/limitReached(maximum:)`` when the order already has `maximumPerOrder` devices (the
    /// count and the insert are one atomic step, across every instance sharing the database). The registration names
    /// the wallet link whose device token made it (`walletLinkID`; `nil` for the order's own token), and goes when
    /// the link is revoked or deleted.
    /// Throws ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)`` if the order does not exist,
    /// ``OrderStoreError/walletLinkClosed(id:)`` if the link was revoked or expired.
    func register(
        deviceLibraryIdentifier: String,
        pushToken: String,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        walletLinkID: String?,
        maximumPerOrder: Int?
    ) async throws -> RegistrationOutcome
    /// Removes a registration; `false` if there was none.
    func unregister(deviceLibraryIdentifier: String, orderTypeIdentifier: String, orderIdentifier: String) async throws -> Bool
    /// The device's registered orders of a type whose change sequence is after `changedAfter`
    /// (all of them when `nil`); `nil` when there are none.
    func registeredOrderIdentifiers(
        deviceLibraryIdentifier: String,
        orderTypeIdentifier: String,
        changedAfter: Int64?
    ) async throws -> ChangedOrders?
    /// Every registration of an order, to push an update to each device.
    func registrations(orderTypeIdentifier: String, orderIdentifier: String) async throws -> [Registration]
    /// How many devices are registered for each of these orders (orders without any are left out).
    func registrationCounts(of orders: [OrderKey]) async throws -> [OrderKey: Int]
}

extension RegistrationStore {
    /// Registers a device with the order's own token, without a cap on the order's devices (tools, tests).
    public func register(
        deviceLibraryIdentifier: String, pushToken: String, orderTypeIdentifier: String, orderIdentifier: String
    ) async throws -> RegistrationOutcome {
        try await register(
            deviceLibraryIdentifier: deviceLibraryIdentifier, pushToken: pushToken, orderTypeIdentifier: orderTypeIdentifier,
            orderIdentifier: orderIdentifier, walletLinkID: nil, maximumPerOrder: nil)
    }
}
