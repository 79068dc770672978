import Logging
import OrderPersistence
import ServiceLifecycle

/// Keeps this instance's in-memory orders, registration lists, packages and APNs connections true to changes any
/// instance commits (``StoreChangeFeed/followChanges(_:)``): announced orders and registrations go to ``CachedCopies``, an
/// announced order type's packages and APNs connection are dropped, and an interruption drops everything until
/// following resumes.
struct StoreChangeFollower: Service {
    let store: any StoreChangeFeed
    let caches: CachedCopies
    let packages: PackageService
    let dispatcher: PushDispatcher
    let metrics: CacheMetrics
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            do {
                try await store.followChanges { event in await handle(event) }
            } catch {
                logger.error(
                    "following store changes stopped; orders and registration lists are no longer kept in memory",
                    metadata: ["error": .string("\(error)")])
                caches.handle(.interrupted(reason: "\(error)"))
            }
        }
    }

    private func handle(_ event: StoreChangeEvent) async {
        caches.handle(event)
        switch event {
        case .orderType(let orderTypeIdentifier):
            packages.invalidateIdentity(orderTypeIdentifier)
            await dispatcher.credentialChanged(orderTypeIdentifier)
        case .interrupted:
            metrics.feedFollowing(false)
            packages.invalidateAllPackages()
        case .following:
            metrics.feedFollowing(true)
        case .order, .registrations:
            break
        }
        metrics.announcementApplied(event)
    }
}
