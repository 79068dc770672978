import Foundation
import ServiceLifecycle

/// All of OrderTrack's persistence: every role at once, for the one place that opens the store and hands each holder
/// the role it needs (``SQLOrderStore`` is the conformer), and for tools that administer the whole database.
///
/// A holder keeps the narrowest role, or a composition of roles, that it uses: ``MerchantStore``, ``APIKeyStore``,
/// ``OrderTypeStore``, ``OrderRecordStore``, ``RegistrationStore``, ``PushOutbox``, ``OrderActivityStore``,
/// ``AssetStore``, ``PackageCacheStore``, ``ApplePayStore``, ``DashboardSessionStore``, ``WalletLinkStore``,
/// ``LookupStore``, ``CarrierConnectionStore``, ``CarrierEventInbox``, ``FulfillmentTrackingStore``, ``EventLog``,
/// ``WebhookStore``, ``InsightStore``, ``RetentionStore`` and ``StoreChangeFeed``.
///
/// The store is also a `Service` (as postgres-nio's `PostgresClient` is): listed first in the application's service
/// group, it closes after every service that uses it has stopped.
///
/// All methods throw ``OrderStoreError``.
public protocol OrderStore: Service, MerchantStore, APIKeyStore, OrderTypeStore, OrderRecordStore, RegistrationStore, PushOutbox,
    OrderActivityStore, AssetStore, PackageCacheStore, ApplePayStore, DashboardSessionStore, WalletLinkStore, LookupStore,
    CarrierConnectionStore, CarrierEventInbox, FulfillmentTrackingStore, EventLog, WebhookStore, InsightStore, RetentionStore, StoreChangeFeed
{
    /// The schema version the database is at; after opening, the latest this build knows.
    func databaseSchemaVersion() async throws -> Int

    /// Closes connections and threads. Further calls throw ``OrderStoreError/storeClosed``.
    func shutdown() async throws
}
