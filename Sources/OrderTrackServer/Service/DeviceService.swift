import OrderPersistence

/// The devices registered for pushes of orders, as Wallet registers and unregisters them.
struct DeviceService: Sendable {
    let store: any OrderStore
    /// Devices one order may have registered (`nil`: no cap).
    let maximumRegistrationsPerOrder: Int?

    /// Registers a device for pushes of an order, replacing its push token if it changed; a new device is refused
    /// (`.limitReached`) when the order has as many as allowed.
    func register(device: String, pushToken: String, for order: OrderRecord) async throws -> RegistrationOutcome {
        try await store.register(
            deviceLibraryIdentifier: device, pushToken: pushToken, orderTypeIdentifier: order.orderTypeIdentifier,
            orderIdentifier: order.orderIdentifier, maximumPerOrder: maximumRegistrationsPerOrder)
    }

    /// Stops pushes of an order to a device; unregistering twice is no error.
    func unregister(device: String, from order: OrderRecord) async throws {
        _ = try await store.unregister(
            deviceLibraryIdentifier: device, orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier)
    }

    /// The device's registered orders of a type changed after `tag` (all of them without one); `nil` when none did.
    func changedOrders(device: String, orderTypeIdentifier: String, after tag: Int64?) async throws -> ChangedOrders? {
        try await store.registeredOrderIdentifiers(deviceLibraryIdentifier: device, orderTypeIdentifier: orderTypeIdentifier, changedAfter: tag)
    }
}
