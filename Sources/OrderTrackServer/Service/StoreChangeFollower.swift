import Logging
import OrderPersistence
import ServiceLifecycle

/// Keeps this instance's in-memory orders, packages and APNs connections true to changes any instance commits
/// (``OrderStore/followChanges(_:)``): an announced order is dropped from the lookup, an announced order type's
/// packages and APNs connection are dropped, and an interruption drops everything until following resumes.
struct StoreChangeFollower: Service {
    let store: any OrderStore
    let lookup: OrderLookup
    let packages: PackageService
    let dispatcher: PushDispatcher
    let metrics: CacheMetrics
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            do {
                try await store.followChanges { event in await handle(event) }
            } catch {
                logger.error("following store changes stopped; orders are no longer kept in memory", metadata: ["error": .string("\(error)")])
                lookup.handle(.interrupted(reason: "\(error)"))
            }
        }
    }

    private func handle(_ event: StoreChangeEvent) async {
        lookup.handle(event)
        switch event {
        case .orderType(let orderTypeIdentifier):
            packages.invalidateIdentity(orderTypeIdentifier)
            await dispatcher.credentialChanged(orderTypeIdentifier)
        case .interrupted:
            metrics.feedFollowing(false)
            packages.invalidateAllPackages()
        case .following:
            metrics.feedFollowing(true)
        case .order:
            break
        }
    }
}
