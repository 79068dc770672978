import Foundation
import OrderModel
import OrderPersistence

/// Shipping orders for carrier-tracking load tests: each has its own tracking number, which the store's
/// fulfillment tracking index knows, and its own devices, so that a carrier event for parcel `i` updates order `i`
/// and pushes to its devices only.
///
/// Order `i` (from 0) is `template` with identifier `orderIdentifierPrefix + i`, authentication token
/// `authenticationTokenPrefix + i` (pass a random prefix of at least 128 bits) and, on its first fulfillment (a
/// shipping one), tracking number ``trackingNumber(_:)``. Its devices are ``pushToken(order:device:)`` for
/// `device` in `0..<devicesPerOrder`.
public struct TrackedOrderSeed: Sendable {
    /// The merchant whose orders these are.
    public var merchantID: String
    /// Must exist and belong to `merchantID`.
    public var orderTypeIdentifier: String
    /// A valid order document, as the store keeps it (`order.json`), whose first fulfillment is a shipping one.
    public var template: [UInt8]
    /// Orders to create.
    public var orderCount: Int
    /// Devices registered for each order; 0 for none.
    public var devicesPerOrder: Int
    /// Order `i`'s authentication token is this prefix and `i`.
    public var authenticationTokenPrefix: String
    /// Order `i`'s identifier is this prefix and `i`.
    public var orderIdentifierPrefix: String
    /// Order `i`'s tracking number is this prefix and `i`.
    public var trackingNumberPrefix: String
    /// Orders written at once.
    public var concurrency: Int

    /// A seed of `orderCount` orders made from `template`, each with `devicesPerOrder` devices.
    public init(
        merchantID: String, orderTypeIdentifier: String, template: [UInt8], orderCount: Int, devicesPerOrder: Int,
        authenticationTokenPrefix: String, orderIdentifierPrefix: String = "tracked-order-", trackingNumberPrefix: String = "BENCH",
        concurrency: Int = 8
    ) {
        self.merchantID = merchantID
        self.orderTypeIdentifier = orderTypeIdentifier
        self.template = template
        self.orderCount = orderCount
        self.devicesPerOrder = devicesPerOrder
        self.authenticationTokenPrefix = authenticationTokenPrefix
        self.orderIdentifierPrefix = orderIdentifierPrefix
        self.trackingNumberPrefix = trackingNumberPrefix
        self.concurrency = concurrency
    }

    /// Order `order`'s tracking number, as carrier events name it.
    public func trackingNumber(_ order: Int) -> String { trackingNumberPrefix + String(order) }

    /// Order `order`'s identifier.
    public func orderIdentifier(_ order: Int) -> String { orderIdentifierPrefix + String(order) }

    /// The push token of device `device` of order `order`: 64 hex digits that no mock APNs fault prefix starts with.
    public func pushToken(order: Int, device: Int) -> String { String(format: "%064x", order * devicesPerOrder + device + 1) }

    /// The order and device a ``pushToken(order:device:)`` belongs to, or `nil` for another token.
    public func device(ofPushToken token: String) -> (order: Int, device: Int)? {
        guard devicesPerOrder > 0, let value = Int(token, radix: 16), value >= 1, value <= orderCount * devicesPerOrder else { return nil }
        return ((value - 1) / devicesPerOrder, (value - 1) % devicesPerOrder)
    }

    /// Creates the orders through the store, each with its fulfillment's tracking number in the same transaction (as an
    /// order written through the API), then registers their devices. Fails on identifiers that already exist, and
    /// before writing anything when the template is not a JSON object with a fulfillment, `orderCount` or `concurrency` is not positive, or
    /// `devicesPerOrder` is negative.
    public func insert(into store: SQLOrderStore) async throws {
        guard orderCount > 0, devicesPerOrder >= 0, concurrency > 0 else {
            throw OrderStoreError.invalidArgument(
                name: "tracked order seed", reason: "orderCount and concurrency must be positive, devicesPerOrder not negative")
        }
        guard let template = try? JSONValue.parse(self.template), let fulfillments = template["fulfillments"]?.arrayValue,
            let first = fulfillments.first,
            let fulfillmentIdentifier = first["fulfillmentIdentifier"]?.stringValue
        else {
            throw OrderStoreError.invalidArgument(name: "tracked order seed template", reason: "has no fulfillment with an identifier")
        }
        let now = Date()
        let records = (0..<orderCount).map { index -> (OrderRecord, FulfillmentTrackingEntry) in
            var document = template
            var parcels = fulfillments
            parcels[0]["trackingNumber"] = .string(trackingNumber(index))
            document["fulfillments"] = .array(parcels)
            document["orderIdentifier"] = .string(orderIdentifier(index))
            // Numbers are unique per order type: the copies have none.
            document["orderNumber"] = nil
            document["authenticationToken"] = .string(authenticationTokenPrefix + String(index))
            let record = OrderRecord(
                orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier(index), merchantID: merchantID,
                authenticationToken: authenticationTokenPrefix + String(index), document: document.serialized(),
                status: document["status"]?.stringValue, createdAt: now, updatedAt: now)
            let tracking = FulfillmentTrackingEntry(
                fulfillmentIdentifier: fulfillmentIdentifier, trackingNumber: trackingNumber(index), carrier: first["carrier"]?.stringValue)
            return (record, tracking)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, (record, tracking)) in records.enumerated() {
                if index >= concurrency { try await group.next() }
                group.addTask { try await store.createOrder(record, note: ChangeNote(), tracking: [tracking]) }
            }
            try await group.waitForAll()
        }
        try await store.insertRegistrations(
            (0..<orderCount).flatMap { order in
                (0..<devicesPerOrder).map { device in
                    Registration(
                        deviceLibraryIdentifier: "tracked-device-\(order)-\(device)", pushToken: pushToken(order: order, device: device),
                        orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier(order), registeredAt: now)
                }
            })
        try await store.refreshStatistics()
    }
}
