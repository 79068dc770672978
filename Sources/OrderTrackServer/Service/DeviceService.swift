import OrderPersistence

/// The devices registered for pushes of orders, as Wallet registers and unregisters them.
struct DeviceService: Sendable {
    let store: any RegistrationStore
    /// Devices one order may have registered (`nil`: no cap).
    let maximumRegistrationsPerOrder: Int?

    /// Registers a device for pushes of the order a device call authenticated for, replacing its push token if it
    /// changed; a new device is refused (`.limitReached`) when the order has as many as allowed. A registration made
    /// with a wallet link's device token goes with the link.
    ///
    /// - Throws: ``OrderStoreError/walletLinkClosed(id:)`` when that link was revoked or expired since the call was
    ///   authenticated.
    func register(device: String, pushToken: String, for authorization: DeviceAuthorization) async throws -> RegistrationOutcome {
        let order = authorization.order
        return try await store.register(
            deviceLibraryIdentifier: device, pushToken: pushToken, orderTypeIdentifier: order.orderTypeIdentifier,
            orderIdentifier: order.orderIdentifier, walletLinkID: authorization.link?.linkID, maximumPerOrder: maximumRegistrationsPerOrder)
    }

    /// Stops pushes of an order to a device; unregistering twice is no error.
    func unregister(device: String, from order: OrderRecord) async throws {
        _ = try await store.unregister(
            deviceLibraryIdentifier: device, orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier)
    }

    /// The device's registered orders of a type changed after `tag` (all of them without one); `nil` when none did.
    ///
    /// Always from the database. A copy kept in memory on PostgreSQL would learn of another instance's change only
    /// after the change's push may have reached the device, which would then be told nothing changed and wait for the
    /// next push; a check of the copy would cost the same index range as the list.
    func changedOrders(device: String, orderTypeIdentifier: String, after tag: Int64?) async throws -> ChangedOrders? {
        try await store.registeredOrderIdentifiers(deviceLibraryIdentifier: device, orderTypeIdentifier: orderTypeIdentifier, changedAfter: tag)
    }
}

/// What a device call's `AppleOrder` token opened: the order, and the wallet link whose device token it was (`nil` for
/// the order's own authenticationToken).
struct DeviceAuthorization: Sendable {
    var order: OrderRecord
    var link: WalletLinkDevice? = nil
}
