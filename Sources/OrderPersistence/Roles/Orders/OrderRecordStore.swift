import Foundation

/// The orders themselves: creating (idempotently), reading, updating and listing them.
///
/// All methods throw ``OrderStoreError``.
public protocol OrderRecordStore: Sendable {
    /// Stores a new order with version 1 and a new change sequence, its `created` activity entry (with `note`'s
    /// author) and its fulfillments' tracking numbers (``FulfillmentTrackingStore``); returns it as stored.
    /// Throws ``OrderStoreError/orderAlreadyExists(orderTypeIdentifier:orderIdentifier:)`` on a duplicate.
    @discardableResult
    func createOrder(_ order: OrderRecord, note: ChangeNote, tracking: [FulfillmentTrackingEntry]) async throws -> OrderRecord
    /// Stores a new order and, in the same transaction, the response to the request that created it under the
    /// request's idempotency key. When the key already holds a response (a retry, or a concurrent request with the same
    /// key), nothing is written and that response is returned as `.replayed`.
    func createOrder(_ order: OrderRecord, idempotency: IdempotencyClaim, note: ChangeNote, tracking: [FulfillmentTrackingEntry]) async throws
        -> IdempotentCreationOutcome
    /// The order with this type and identifier, or `nil`.
    func order(type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> OrderRecord?
    /// The ``OrderRecord/version`` of each of these orders that exists (at most 500 keys): checks copies kept in memory
    /// without reading their documents, in one query.
    func orderVersions(_ keys: [OrderKey]) async throws -> [OrderKey: Int]
    /// Replaces the document of an order if its version is still `expectedVersion`; bumps version and
    /// change sequence and records the `updated` activity entry described by `note`. A new `authenticationToken`
    /// (a rotation) replaces the order's and deletes the registrations made with the old one.
    /// Throws ``OrderStoreError/versionConflict(orderTypeIdentifier:orderIdentifier:expected:actual:)``
    /// when another update came first (re-read and retry) or ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)``.
    /// `renumberedFor` names the order's merchant when the update gives it another `orderNumber`, which must then be
    /// free in the order type (``OrderStoreError/orderNumberExists(orderTypeIdentifier:orderNumber:existingOrderIdentifier:)``);
    /// `nil` when the number stays, which costs no lookup. `tracking`, when given, replaces the order's fulfillments'
    /// tracking numbers in the same transaction (``FulfillmentTrackingStore/replaceFulfillmentTracking(order:merchantID:entries:)``);
    /// `nil` when they stay, which costs no statement. `scan`, a carrier scan the update applies, is recorded on its
    /// fulfillment in the same transaction (``FulfillmentScan``).
    func updateOrder(
        type orderTypeIdentifier: String,
        id orderIdentifier: String,
        expectedVersion: Int,
        document: [UInt8],
        status: String?,
        orderNumber: String?,
        renumberedFor merchantID: String?,
        updatedAt: Date,
        note: ChangeNote,
        authenticationToken: String?,
        tracking: [FulfillmentTrackingEntry]?,
        scan: FulfillmentScan?
    ) async throws -> OrderRecord
    /// A merchant's orders in creation order, optionally filtered; `after` is the cursor of the previous page.
    func listOrders(
        merchantID: String,
        orderTypeIdentifier: String?,
        orderNumber: String?,
        status: String?,
        updatedSince: Date?,
        after cursor: String?,
        limit: Int
    ) async throws -> OrderPage
    /// A merchant's orders newest first, for people browsing them, optionally only those of one order type or with
    /// `status`, or those whose order number or order identifier is `search`; `before` is the previous page's
    /// ``OrderPage/nextCursor``.
    func recentOrders(merchantID: String, orderTypeIdentifier: String?, status: String?, search: String?, before cursor: String?, limit: Int)
        async throws -> OrderPage
    /// The change sequence of the merchant's latest order change (0 before any): it moves whenever one of its orders
    /// is created or updated, which is when a page showing them is out of date.
    func latestChangeSequence(merchantID: String) async throws -> Int64
    /// The orders whose authentication token is `token`, at most two (merchants may reuse a token they chose).
    func orders(authenticationToken token: String) async throws -> [OrderRecord]
    /// The response stored under a merchant's idempotency key, or `nil` when the key is unused.
    func idempotentResponse(merchantID: String, key: String) async throws -> IdempotencyRecord?
}

extension OrderRecordStore {
    /// Stores a new order whose creation names no author (tools, imports, tests).
    @discardableResult
    public func createOrder(_ order: OrderRecord) async throws -> OrderRecord {
        try await createOrder(order, note: ChangeNote(), tracking: [])
    }

    /// Stores a new order with no tracked fulfillments.
    @discardableResult
    public func createOrder(_ order: OrderRecord, note: ChangeNote) async throws -> OrderRecord {
        try await createOrder(order, note: note, tracking: [])
    }

    /// Stores a new order under an idempotency key, naming no author.
    public func createOrder(_ order: OrderRecord, idempotency: IdempotencyClaim) async throws -> IdempotentCreationOutcome {
        try await createOrder(order, idempotency: idempotency, note: ChangeNote(), tracking: [])
    }

    /// Stores a new order under an idempotency key, with no tracked fulfillments.
    public func createOrder(_ order: OrderRecord, idempotency: IdempotencyClaim, note: ChangeNote) async throws -> IdempotentCreationOutcome {
        try await createOrder(order, idempotency: idempotency, note: note, tracking: [])
    }

    /// Updates an order, leaving its tracked fulfillments as they are (tools, tests).
    public func updateOrder(
        type orderTypeIdentifier: String, id orderIdentifier: String, expectedVersion: Int, document: [UInt8], status: String?,
        orderNumber: String?, renumberedFor merchantID: String?, updatedAt: Date, note: ChangeNote, authenticationToken: String?
    ) async throws -> OrderRecord {
        try await updateOrder(
            type: orderTypeIdentifier, id: orderIdentifier, expectedVersion: expectedVersion, document: document, status: status,
            orderNumber: orderNumber, renumberedFor: merchantID, updatedAt: updatedAt, note: note, authenticationToken: authenticationToken,
            tracking: nil, scan: nil)
    }

    /// Updates an order, keeping its token and naming no author and no changed fields (tools, tests); reads the order
    /// first to know whether its number changes.
    public func updateOrder(
        type orderTypeIdentifier: String, id orderIdentifier: String, expectedVersion: Int, document: [UInt8], status: String?,
        orderNumber: String?, updatedAt: Date
    ) async throws -> OrderRecord {
        let current = try await order(type: orderTypeIdentifier, id: orderIdentifier)
        return try await updateOrder(
            type: orderTypeIdentifier, id: orderIdentifier, expectedVersion: expectedVersion, document: document, status: status,
            orderNumber: orderNumber, renumberedFor: current.flatMap { $0.orderNumber == orderNumber ? nil : $0.merchantID },
            updatedAt: updatedAt, note: ChangeNote(), authenticationToken: nil, tracking: nil, scan: nil)
    }
}
