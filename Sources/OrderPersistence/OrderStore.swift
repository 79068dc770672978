import Foundation

/// Persistence of OrderTrack: merchants, API keys, order types, orders, device registrations,
/// idempotent responses, assets and the signed-package cache.
///
/// All methods throw ``OrderStoreError``.
public protocol OrderStore: Sendable {
    // MARK: Merchants and API keys

    /// Creates a merchant with a new random UUID.
    func createMerchant(name: String) async throws -> MerchantRecord
    /// The merchant with this id, or `nil`.
    func merchant(id: String) async throws -> MerchantRecord?
    /// Every merchant, oldest first.
    func merchants() async throws -> [MerchantRecord]

    /// Stores an API key by its SHA-256 (lowercase hex, computed by the caller).
    /// Throws ``OrderStoreError/merchantNotFound(id:)`` or ``OrderStoreError/apiKeyAlreadyExists(prefix:)``.
    func addAPIKey(_ key: APIKeyInfo, keyHash: String) async throws
    /// The merchant owning the unrestricted (every scope), unrevoked and unexpired API key with this SHA-256, if any:
    /// what a dashboard sign-in accepts.
    func merchant(forAPIKeyHash keyHash: String) async throws -> MerchantRecord?
    /// The API key with this SHA-256 and its merchant, revoked or expired or not (the caller judges by its clock).
    func apiKey(forHash keyHash: String) async throws -> (key: APIKeyInfo, merchant: MerchantRecord)?
    /// The key whose earlier secret had this SHA-256, and when a rotation replaced it; `nil` when no rotation did.
    func retiredAPIKey(forHash keyHash: String) async throws -> (keyID: String, retiredAt: Date)?
    /// A merchant's API keys, revoked ones included, oldest first.
    func apiKeys(merchantID: String) async throws -> [APIKeyInfo]
    /// Revokes one of the merchant's API keys (a second revocation keeps the first date); `nil` when it has none with
    /// this id.
    func revokeAPIKey(merchantID: String, id: String, at date: Date) async throws -> APIKeyInfo?
    /// Gives one of the merchant's unrevoked keys a new secret (by its SHA-256 and prefix): the old secret stops
    /// working in the same write. `nil` when the merchant has no unrevoked key with this id.
    func replaceAPIKeySecret(merchantID: String, id: String, keyHash: String, prefix: String) async throws -> APIKeyInfo?
    /// Records when keys were used, in one transaction; a key keeps a recorded use less than `interval` before the
    /// new one (so instances racing write about once per interval).
    func recordAPIKeyUses(_ uses: [String: Date], unlessUsedWithin interval: TimeInterval) async throws

    // MARK: Order types

    /// Creates or replaces an order type; a new signing identity drops the type's cached packages, which carry the old
    /// signature, so that every instance rebuilds them. Throws ``OrderStoreError/orderTypeOwnedByAnotherMerchant(orderTypeIdentifier:)``
    /// if another merchant already owns the identifier.
    func upsertOrderType(_ record: OrderTypeRecord) async throws
    /// The order type with this identifier, or `nil` when none is configured.
    func orderType(_ orderTypeIdentifier: String) async throws -> OrderTypeRecord?
    /// A merchant's order types, sorted by identifier.
    func orderTypes(merchantID: String) async throws -> [OrderTypeRecord]
    /// The merchant's default order type, which a created order without `orderTypeIdentifier` gets.
    func defaultOrderType(merchantID: String) async throws -> String?
    /// Makes one of the merchant's order types its default; throws ``OrderStoreError/orderTypeNotFound(orderTypeIdentifier:)``.
    func setDefaultOrderType(merchantID: String, orderTypeIdentifier: String) async throws
    /// Deletes a merchant's order type; with orders only when `force` (they are deleted with it).
    func deleteOrderType(_ orderTypeIdentifier: String, merchantID: String, force: Bool) async throws -> DeletionSummary
    /// Deletes a merchant and everything it owns; with orders only when `force`.
    func deleteMerchant(id: String, force: Bool) async throws -> DeletionSummary

    // MARK: Orders

    /// Stores a new order with version 1 and a new change sequence, and its `created` activity entry (with `note`'s
    /// author); returns it as stored.
    /// Throws ``OrderStoreError/orderAlreadyExists(orderTypeIdentifier:orderIdentifier:)`` on a duplicate.
    @discardableResult
    func createOrder(_ order: OrderRecord, note: ChangeNote) async throws -> OrderRecord
    /// Stores a new order and, in the same transaction, the response to the request that created it under the
    /// request's idempotency key. When the key already holds a response (a retry, or a concurrent request with the same
    /// key), nothing is written and that response is returned as `.replayed`.
    func createOrder(_ order: OrderRecord, idempotency: IdempotencyClaim, note: ChangeNote) async throws -> IdempotentCreationOutcome
    /// The order with this type and identifier, or `nil`.
    func order(type orderTypeIdentifier: String, id orderIdentifier: String) async throws -> OrderRecord?
    /// Replaces the document of an order if its version is still `expectedVersion`; bumps version and
    /// change sequence and records the `updated` activity entry described by `note`. A new `authenticationToken`
    /// (a rotation) replaces the order's and deletes the registrations made with the old one.
    /// Throws ``OrderStoreError/versionConflict(orderTypeIdentifier:orderIdentifier:expected:actual:)``
    /// when another update came first (re-read and retry) or ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)``.
    /// `renumberedFor` names the order's merchant when the update gives it another `orderNumber`, which must then be
    /// free in the order type (``OrderStoreError/orderNumberExists(orderTypeIdentifier:orderNumber:existingOrderIdentifier:)``);
    /// `nil` when the number stays, which costs no lookup.
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
        authenticationToken: String?
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

    // MARK: Registrations

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
    /// Every order of a type the device is registered for, with its change sequence, in the order of their changes:
    /// what ``registeredOrderIdentifiers(deviceLibraryIdentifier:orderTypeIdentifier:changedAfter:)`` filters, for a
    /// copy kept in memory that answers any tag (``ChangedOrders/init(_:changedAfter:)``).
    func registeredOrders(deviceLibraryIdentifier: String, orderTypeIdentifier: String) async throws -> [RegisteredOrder]
    /// Every registration of an order, to push an update to each device.
    func registrations(orderTypeIdentifier: String, orderIdentifier: String) async throws -> [Registration]
    /// Deletes the registrations of a push token rejected by APNs; with `registeredBefore`, only those whose
    /// token was registered before that instant (APNs 410 timestamp). Returns the number deleted.
    func deleteRegistrations(pushToken: String, registeredBefore: Date?) async throws -> Int

    // MARK: Push outbox

    /// Queues a push to every device registered for the order (order updates do this in their own transaction);
    /// returns how many tokens that reaches.
    func enqueuePushes(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int
    /// Claims up to `limit` due jobs for `leaseDuration`, in queue order after `position` (from the start without one); a
    /// job whose claimer dies is claimable again afterwards, by a claim from the start.
    func claimPushJobs(limit: Int, leaseOwner: String, leaseDuration: TimeInterval, after position: PushQueuePosition?) async throws -> [PushJob]
    /// Extends the claims `leaseOwner` still holds on the given jobs to now + `leaseDuration`, so that a send slower than
    /// the lease (a loaded machine, a slow APNs) is not taken over while it is in flight. A claim that already expired
    /// is not revived: another sender may hold the job by now. Returns how many claims were extended.
    @discardableResult
    func renewPushLeases(jobIDs: [Int64], leaseOwner: String, leaseDuration: TimeInterval) async throws -> Int
    /// Records an attempt in the push log and applies its resolution to the job (and, for dead tokens, registrations).
    func resolvePushJob(_ job: PushJob, resolution: PushJobResolution, log entry: PushLogEntry) async throws
    /// The same for a batch of attempts, in one transaction.
    func resolvePushJobs(_ outcomes: [(job: PushJob, resolution: PushJobResolution, log: PushLogEntry)]) async throws
    /// Frees every claim; only for a process that knows it is the database's sole sender (SQLite), after a restart.
    func releasePushLeases() async throws
    /// How many push jobs wait to be sent (`pending`) and how many wait for the next change (`parked`).
    func pushQueueDepth() async throws -> (pending: Int, parked: Int)
    /// The most recent attempts for an order, newest first.
    func pushLog(orderTypeIdentifier: String, orderIdentifier: String, limit: Int) async throws -> [PushLogEntry]
    /// Deletes push log entries recorded before `date`, oldest first, a bounded batch per transaction so that
    /// concurrent writers never wait long; returns the number deleted.
    func deletePushLog(before date: Date) async throws -> Int

    // MARK: Idempotency

    /// The response stored under a merchant's idempotency key, or `nil` when the key is unused.
    func idempotentResponse(merchantID: String, key: String) async throws -> IdempotencyRecord?
    /// Deletes idempotent responses created before `date`; returns the number deleted.
    func deleteIdempotentResponses(createdBefore date: Date) async throws -> Int

    // MARK: Assets

    /// Creates or replaces an asset.
    @discardableResult
    func putAsset(merchantID: String, name: String, contentType: String, bytes: [UInt8], sha256: String) async throws -> AssetInfo
    /// A merchant's asset with its bytes, or `nil`.
    func asset(merchantID: String, name: String) async throws -> Asset?
    /// The merchant's assets of these names with their bytes, in one read; names it lacks are left out.
    func assets(merchantID: String, named names: Set<String>) async throws -> [Asset]
    /// Deletes an asset; `false` if there was none.
    func deleteAsset(merchantID: String, name: String) async throws -> Bool
    /// The metadata of a merchant's assets, sorted by name.
    func assets(merchantID: String) async throws -> [AssetInfo]

    // MARK: Apple Pay

    /// Stores a payment-processing identity; the same public key again answers the identity stored first.
    func addPaymentIdentity(_ record: PaymentIdentityRecord) async throws -> PaymentIdentityRecord
    /// The merchant's payment-processing identities, oldest first.
    func paymentIdentities(merchantID: String) async throws -> [PaymentIdentityRecord]
    /// Deletes one of the merchant's payment-processing identities; `false` if it has none with this id.
    func deletePaymentIdentity(merchantID: String, id: String) async throws -> Bool
    /// Creates or replaces the merchant's Merchant Identity certificate for merchant validation.
    func putApplePayMerchantIdentity(_ record: ApplePayMerchantIdentityRecord) async throws
    /// The merchant's Merchant Identity configuration, or `nil` when it has none.
    func applePayMerchantIdentity(merchantID: String) async throws -> ApplePayMerchantIdentityRecord?

    // MARK: Dashboard

    /// Stores a new dashboard session (its id only as a hash).
    func createDashboardSession(_ session: DashboardSessionRecord) async throws
    /// The dashboard session whose id has this SHA-256, expired or not (the caller judges expiry by its clock), while
    /// the key that opened it is unrevoked and unrotated; revoking or rotating a key deletes its sessions.
    func dashboardSession(idHash: String) async throws -> LiveDashboardSession?
    /// Deletes a dashboard session (sign-out); `false` if there was none.
    @discardableResult
    func deleteDashboardSession(idHash: String) async throws -> Bool
    /// Deletes every dashboard session of the merchant; returns the number deleted.
    func deleteDashboardSessions(merchantID: String) async throws -> Int
    /// Deletes the dashboard sessions that expired before `date`; returns the number deleted.
    func deleteDashboardSessions(expiredBefore date: Date) async throws -> Int
    /// A merchant's orders newest first, for people browsing them, optionally only those of one order type or with
    /// `status`, or those whose order number or order identifier is `search`; `before` is the previous page's
    /// ``OrderPage/nextCursor``.
    func recentOrders(merchantID: String, orderTypeIdentifier: String?, status: String?, search: String?, before cursor: String?, limit: Int)
        async throws -> OrderPage
    /// The change sequence of the merchant's latest order change (0 before any): it moves whenever one of its orders
    /// is created or updated, which is when a page showing them is out of date.
    func latestChangeSequence(merchantID: String) async throws -> Int64
    /// The id of the order's latest push log entry (0 before any): it moves with every push attempt recorded.
    func latestPushLogID(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int64
    /// The id of the latest push log entry of any of these orders of the merchant (0 before any): it moves with every
    /// push attempt recorded for one of them. Keys of other merchants' orders count for nothing.
    func latestPushLogID(merchantID: String, of orders: [OrderKey]) async throws -> Int64
    /// How many devices are registered for each of these orders (orders without any are left out).
    func registrationCounts(of orders: [OrderKey]) async throws -> [OrderKey: Int]

    // MARK: Payment-provider compatibility

    /// Sets a merchant's order defaults, merchant-wide or for one of its order types, replacing any earlier ones.
    /// Throws ``OrderStoreError/orderTypeNotFound(orderTypeIdentifier:)`` for an order type the merchant lacks.
    func putOrderDefaults(_ record: MerchantOrderDefaultsRecord) async throws
    /// In one read, the merchant-wide order defaults and, with `orderTypeIdentifier`, that order type's: whichever
    /// were ever set, merchant-wide first.
    func orderDefaults(merchantID: String, orderTypeIdentifier: String?) async throws -> [MerchantOrderDefaultsRecord]
    /// The orders whose authentication token is `token`, at most two (merchants may reuse a token they chose).
    func orders(authenticationToken token: String) async throws -> [OrderRecord]
    /// Stores a new wallet link (its token only as a hash) for an order of the link's merchant.
    func createWalletLink(_ link: WalletLinkRecord) async throws
    /// The wallet link whose token has this SHA-256, expired, revoked or not (the caller judges by its clock).
    func walletLink(tokenHash: String) async throws -> WalletLinkRecord?
    /// The wallet link whose device token has this SHA-256, expired, revoked or not (the caller judges by its clock).
    func walletLink(deviceTokenHash: String) async throws -> WalletLinkRecord?
    /// Gives a link made before links had device tokens its device token's SHA-256; a link that has one keeps it.
    func setWalletLinkDeviceTokenHash(id: String, deviceTokenHash: String) async throws
    /// Uses up a single-use link: `true` for the one caller that used it, `false` when it was used already.
    func useWalletLink(id: String, at date: Date) async throws -> Bool
    /// Revokes one of the merchant's wallet links and deletes the registrations made with its device token; `nil` when
    /// it has no link with that id.
    func revokeWalletLink(merchantID: String, id: String, at date: Date) async throws -> WalletLinkRecord?
    /// Deletes wallet links that expired before `date`, with their registrations; returns the number of links deleted.
    func deleteWalletLinks(expiredBefore date: Date) async throws -> Int
    /// Deletes the registrations made with the device tokens of links that expired before `date`; returns the number
    /// deleted.
    func deleteRegistrations(ofWalletLinksExpiredBefore date: Date) async throws -> Int
    // MARK: Order activity

    /// Appends activity recorded outside a change's transaction (package fetches, written behind), in one transaction.
    func appendActivity(_ entries: [OrderActivity]) async throws
    /// The most recent `limit` activity entries of an order, newest first.
    func orderActivity(orderTypeIdentifier: String, orderIdentifier: String, limit: Int) async throws -> [OrderActivity]
    /// The most recent `limit` changes of an order (creation and updates, with who, where from and the diff), newest
    /// first: the order's audit trail.
    func orderHistory(orderTypeIdentifier: String, orderIdentifier: String, limit: Int) async throws -> [OrderActivity]
    /// The id of the order's latest activity entry (0 before any): it moves with every entry recorded.
    func latestActivityID(orderTypeIdentifier: String, orderIdentifier: String) async throws -> Int64
    /// Deletes activity recorded before `date`; returns the number deleted.
    func deleteActivity(before date: Date) async throws -> Int

    // MARK: Order lookup

    /// Stores a new order-lookup key (public half only).
    func addLookupKey(_ record: LookupKeyRecord) async throws
    /// The lookup key with this id, revoked or not, whatever its merchant.
    func lookupKey(id keyID: String) async throws -> LookupKeyRecord?
    /// The merchant's lookup keys, revoked ones included, oldest first.
    func lookupKeys(merchantID: String) async throws -> [LookupKeyRecord]
    /// Revokes one of the merchant's lookup keys; `nil` when it has none with this id.
    func revokeLookupKey(merchantID: String, keyID: String, at date: Date) async throws -> LookupKeyRecord?
    /// The deployment's transaction-signing chain, or `nil` before one is stored.
    func lookupSigningChain() async throws -> LookupSigningChainRecord?
    /// Stores the deployment's chain unless one is stored already; answers the stored one.
    func storeLookupSigningChainIfAbsent(_ record: LookupSigningChainRecord) async throws -> LookupSigningChainRecord
    /// The merchant's orders whose order number, else order identifier, is `orderID`, oldest first, at most `limit`:
    /// orders stored before numbers were unique, or of several order types, may share a number.
    func orders(merchantID: String, orderNumberOrIdentifier orderID: String, limit: Int) async throws -> [OrderRecord]

    // MARK: Package cache

    /// The signed package built for this version of the order, if cached.
    func cachedPackage(type orderTypeIdentifier: String, id orderIdentifier: String, version: Int) async throws -> [UInt8]?
    /// Caches a signed package; only the latest version per order is kept, an older version never replaces a newer one.
    func storePackage(type orderTypeIdentifier: String, id orderIdentifier: String, version: Int, bytes: [UInt8]) async throws

    // MARK: Bulk

    /// Inserts many new orders in one transaction (version 1, consecutive change sequences), for seeding
    /// benchmarks and imports. Fails as a whole on any duplicate.
    func insertOrders(_ orders: [OrderRecord]) async throws
    /// Inserts many new registrations in one transaction. Fails as a whole on any duplicate or unknown order.
    func insertRegistrations(_ registrations: [Registration]) async throws

    /// The schema version the database is at; after opening, the latest this build knows.
    func databaseSchemaVersion() async throws -> Int

    /// Reports the changes of orders, order types and registrations that any process commits, for copies kept in
    /// memory, until the task is cancelled.
    ///
    /// Each change is reported after its commit. ``StoreChangeEvent/following`` comes first and after every
    /// ``StoreChangeEvent/interrupted(reason:)``: between the two, changes may go unreported. With SQLite this process
    /// is the only writer, so ``StoreChangeEvent/following`` is all it reports.
    func followChanges(_ report: @escaping @Sendable (StoreChangeEvent) async -> Void) async throws

    /// Closes connections and threads. Further calls throw ``OrderStoreError/storeClosed``.
    func shutdown() async throws
}

extension OrderStore {
    /// Registers a device with the order's own token, without a cap on the order's devices (tools, tests).
    public func register(
        deviceLibraryIdentifier: String, pushToken: String, orderTypeIdentifier: String, orderIdentifier: String
    ) async throws -> RegistrationOutcome {
        try await register(
            deviceLibraryIdentifier: deviceLibraryIdentifier, pushToken: pushToken, orderTypeIdentifier: orderTypeIdentifier,
            orderIdentifier: orderIdentifier, walletLinkID: nil, maximumPerOrder: nil)
    }

    /// Stores a new order whose creation names no author (tools, imports, tests).
    @discardableResult
    public func createOrder(_ order: OrderRecord) async throws -> OrderRecord {
        try await createOrder(order, note: ChangeNote())
    }

    /// Stores a new order under an idempotency key, naming no author.
    public func createOrder(_ order: OrderRecord, idempotency: IdempotencyClaim) async throws -> IdempotentCreationOutcome {
        try await createOrder(order, idempotency: idempotency, note: ChangeNote())
    }

    /// Stores a secret API key (every scope, no expiry) under a new id.
    public func addAPIKey(merchantID: String, keyHash: String, prefix: String) async throws {
        try await addAPIKey(
            APIKeyInfo(id: APIKeyInfo.newID(), merchantID: merchantID, name: "secret key", prefix: prefix, createdAt: Date()), keyHash: keyHash)
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
            updatedAt: updatedAt, note: ChangeNote(), authenticationToken: nil)
    }
}

extension OrderStore {
    /// Claims up to `limit` due jobs for `leaseDuration`, from the start of the queue.
    public func claimPushJobs(limit: Int, leaseOwner: String, leaseDuration: TimeInterval) async throws -> [PushJob] {
        try await claimPushJobs(limit: limit, leaseOwner: leaseOwner, leaseDuration: leaseDuration, after: nil)
    }
}
