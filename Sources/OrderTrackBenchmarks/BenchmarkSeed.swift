import OrderPersistence

/// Synthetic orders and registrations for load tests, generated inside the database so that a million
/// rows take seconds instead of minutes of per-row binds; ``insert(into:)`` writes them.
///
/// Order `i` (from 0) gets identifier `orderIdentifierPrefix + i` and authentication token
/// `authenticationTokenPrefix + i`: pass a random prefix of at least 128 bits so tokens stay unguessable. With an
/// `orderNumberPrefix`, order `i` has order number `orderNumberPrefix + i`.
/// Registration `j` registers device `deviceIdentifierPrefix + j / ordersPerDevice` (push token
/// `pushTokenPrefix + j / ordersPerDevice`) for order `j % orderCount`.
public struct BenchmarkSeed: Sendable {
    public var merchantID: String
    /// Must exist and belong to `merchantID`.
    public var orderTypeIdentifier: String
    public var orderCount: Int
    public var registrationCount: Int
    /// At most `orderCount`, so that no device registers twice for one order.
    public var ordersPerDevice: Int
    public var document: [UInt8]
    public var status: String?
    public var authenticationTokenPrefix: String
    public var orderIdentifierPrefix: String
    public var deviceIdentifierPrefix: String
    public var pushTokenPrefix: String
    public var orderNumberPrefix: String?
    /// Rows per transaction; smaller batches hold the write lock for shorter times.
    public var batchSize: Int

    public init(
        merchantID: String,
        orderTypeIdentifier: String,
        orderCount: Int,
        registrationCount: Int,
        ordersPerDevice: Int = 10,
        document: [UInt8],
        status: String? = "open",
        authenticationTokenPrefix: String,
        orderIdentifierPrefix: String = "bench-order-",
        deviceIdentifierPrefix: String = "bench-device-",
        pushTokenPrefix: String = "bench-push-",
        orderNumberPrefix: String? = nil,
        batchSize: Int = 100_000
    ) {
        self.merchantID = merchantID
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderCount = orderCount
        self.registrationCount = registrationCount
        self.ordersPerDevice = ordersPerDevice
        self.document = document
        self.status = status
        self.authenticationTokenPrefix = authenticationTokenPrefix
        self.orderIdentifierPrefix = orderIdentifierPrefix
        self.deviceIdentifierPrefix = deviceIdentifierPrefix
        self.pushTokenPrefix = pushTokenPrefix
        self.orderNumberPrefix = orderNumberPrefix
        self.batchSize = batchSize
    }

    /// Inserts the orders, then the registrations, in batches of ``batchSize`` rows, one transaction per batch, then
    /// refreshes the planner's statistics.
    /// Orders get version 1 and consecutive change sequences. Fails on identifiers that already exist, and before
    /// writing anything on counts that do not fit together.
    public func insert(into store: SQLOrderStore) async throws {
        try validate()
        for start in stride(from: 0, to: orderCount, by: batchSize) {
            try await store.insertGeneratedOrders(
                start..<min(start + batchSize, orderCount), merchantID: merchantID, orderTypeIdentifier: orderTypeIdentifier,
                orderIdentifierPrefix: orderIdentifierPrefix, authenticationTokenPrefix: authenticationTokenPrefix, document: document,
                status: status, orderNumberPrefix: orderNumberPrefix)
        }
        for start in stride(from: 0, to: registrationCount, by: batchSize) {
            try await store.insertGeneratedRegistrations(
                start..<min(start + batchSize, registrationCount), orderTypeIdentifier: orderTypeIdentifier,
                orderIdentifierPrefix: orderIdentifierPrefix, orderCount: orderCount, deviceIdentifierPrefix: deviceIdentifierPrefix,
                pushTokenPrefix: pushTokenPrefix, ordersPerDevice: ordersPerDevice)
        }
        try await store.refreshStatistics()
    }

    private func validate() throws(OrderStoreError) {
        guard orderCount >= 0 else { throw invalid("orderCount", "\(orderCount) is negative") }
        guard registrationCount >= 0 else { throw invalid("registrationCount", "\(registrationCount) is negative") }
        guard batchSize >= 1 else { throw invalid("batchSize", "\(batchSize) is not at least 1") }
        guard authenticationTokenPrefix.count >= 16 else {
            throw invalid("authenticationTokenPrefix", "must have at least 16 characters so tokens are not guessable")
        }
        if registrationCount > 0 {
            guard orderCount >= 1 else { throw invalid("orderCount", "registrations need at least one order") }
            guard (1...orderCount).contains(ordersPerDevice) else {
                throw invalid("ordersPerDevice", "\(ordersPerDevice) is not between 1 and orderCount (\(orderCount))")
            }
        }
    }

    private func invalid(_ name: String, _ reason: String) -> OrderStoreError {
        .invalidArgument(name: "benchmark seed \(name)", reason: reason)
    }
}
