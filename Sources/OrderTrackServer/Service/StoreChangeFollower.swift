import Logging
import OrderPersistence
import ServiceLifecycle

/// Keeps this instance's in-memory orders, packages and APNs connections true to changes any instance commits
/// (``StoreChangeFeed/followChanges(_:)``): an announced order's kept record is dropped, an announced order type's
/// configuration, packages and APNs connection are dropped, and an interruption drops every package and configuration
/// (kept orders are checked against the database on each read anyway, ``OrderRecordCache``).
struct StoreChangeFollower: Service {
    let store: any StoreChangeFeed
    let orders: OrderRecordCache
    let packages: PackageService
    let credentials: CredentialProvider
    let dispatcher: PushDispatcher
    let metrics: CacheMetrics
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            do {
                try await store.followChanges { event in await handle(event) }
            } catch {
                logger.error("following store changes stopped", metadata: ["error": .string("\(error)")])
                await handle(.interrupted(reason: "\(error)"))
            }
        }
    }

    private func handle(_ event: StoreChangeEvent) async {
        switch event {
        case .orderType(let orderTypeIdentifier):
            packages.invalidateIdentity(orderTypeIdentifier)
            await dispatcher.credentialChanged(orderTypeIdentifier)
        case .interrupted:
            metrics.feedFollowing(false)
            credentials.followingChanges(false)
            packages.invalidateAllPackages()
        case .following:
            metrics.feedFollowing(true)
            credentials.followingChanges(true)
        case .order(let type, let id):
            orders.forget(type: type, id: id)
        }
        metrics.announcementApplied(event)
    }
}
