import BoundedCache
import Foundation
import Logging
@_spi(WorkTally) import OrderModel
import OrderPackage
import OrderPersistence
import OrderSigning
import ServiceLifecycle
import Synchronization

/// Signed packages of orders: each order version is built and signed once, then served from memory or the store.
/// A Track in Wallet link's package (the order's version carrying the link's device token) is built once per link and
/// version and kept in memory only: the store keeps link tokens as hashes, never in a package.
///
/// Only bookkeeping happens under the lock, so a remembered package is answered at once, never behind a build or an
/// identity load (audit M3). Builds run on the CPU pool, one per order version however many requests ask for it
/// (single flight), independently of other orders'. Signing identities come from the ``CredentialProvider`` that push
/// delivery also uses.
///
/// As a service it runs the builds ``prepare(_:)`` asks for, a bounded number at a time, and at shutdown waits for
/// the running ones, at most ``shutdownGrace``, before the store closes (audit L14).
package final class PackageService: Service, Sendable {
    private struct CacheKey: Hashable {
        var orderTypeIdentifier: String
        var orderIdentifier: String
        /// The wallet link whose device token the package carries; `nil` for the order's own token.
        var walletLinkID: String?

        init(_ record: OrderRecord, link: WalletLinkDevice?) {
            orderTypeIdentifier = record.orderTypeIdentifier
            orderIdentifier = record.orderIdentifier
            walletLinkID = link?.linkID
        }
    }

    private struct CachedPackage {
        var version: Int
        var bytes: [UInt8]
    }

    private struct Build {
        var version: Int
        var outcome: SharedOutcome<[UInt8]>
    }

    private struct State {
        /// Signed packages by order, at most the service's capacity in bytes, least recently used first out.
        var memory: LRUCache<CacheKey, CachedPackage>
        var builds: [CacheKey: Build] = [:]
        /// New versions ``prepare(_:)`` queued, as their writers validated them, until one is built: a device whose
        /// fetch comes before the queued build (the pool busy) signs that instead of parsing and validating the
        /// stored document again and reading the assets (at the soak's saturation, more work than the updates' own
        /// validation). At most ``maximumQueuedBuilds``, the least recently prepared first out, like the queue.
        var prepared = LRUCache<CacheKey, PreparedBuild>(capacity: PackageService.maximumQueuedBuilds)
        var isShuttingDown = false

        mutating func cachedBytes(_ key: CacheKey, version: Int) -> [UInt8]? {
            guard let cached = memory.value(forKey: key), cached.version == version else { return nil }
            return cached.bytes
        }

        mutating func remember(_ bytes: [UInt8], version: Int, for key: CacheKey) {
            // A build of an older version can finish after a newer one.
            if let previous = memory.value(forKey: key), previous.version > version { return }
            memory.setValue(CachedPackage(version: version, bytes: bytes), forKey: key, cost: bytes.count)
        }
    }

    /// Builds asked for by ``prepare(_:)`` that wait for a slot; beyond this the oldest are dropped (they are built
    /// when a device first fetches them).
    static let maximumQueuedBuilds = 1_000
    /// How long shutdown waits for running background builds before cancelling them.
    static let shutdownGrace = Duration.seconds(10)

    private let store: any AssetStore & PackageCacheStore
    private let credentials: CredentialProvider
    private let cpu: CPUWorkPool
    private let validationOptions: ValidationOptions
    private let logger: Logger
    private let metrics: CacheMetrics?
    private let assetCache = AssetCache()
    /// Signing times and the shutdown grace.
    private let clock: ServerClock
    private let state: Mutex<State>
    private let queued: AsyncStream<PreparedBuild>
    private let queue: AsyncStream<PreparedBuild>.Continuation

    /// A new version to build in the background, as its writer validated it.
    fileprivate struct PreparedBuild: Sendable {
        var record: OrderRecord
        var order: ValidatedOrder
        /// The writer's tally (tests count a change's work, its package's included).
        var tally: WorkTally?
    }

    init(
        store: any AssetStore & PackageCacheStore, credentials: CredentialProvider, cpu: CPUWorkPool, validationOptions: ValidationOptions,
        capacityBytes: Int,
        logger: Logger, metrics: CacheMetrics? = nil, clock: ServerClock
    ) {
        self.store = store
        self.clock = clock
        self.metrics = metrics
        self.credentials = credentials
        self.cpu = cpu
        self.validationOptions = validationOptions
        self.state = Mutex(State(memory: LRUCache(capacity: capacityBytes)))
        self.logger = logger
        (queued, queue) = AsyncStream.makeStream(of: PreparedBuild.self, bufferingPolicy: .bufferingNewest(Self.maximumQueuedBuilds))
    }

    /// The signed package of the order's version, carrying the order's authenticationToken or, with `link`, the link's
    /// device token instead; built at most once per version (and link), even under concurrent requests. `validated`
    /// is the version as its writer validated it, which a build signs as it is.
    func package(for record: OrderRecord, carrying link: WalletLinkDevice? = nil, validated: ValidatedOrder? = nil) async throws -> [UInt8] {
        enum Step {
            case cached([UInt8])
            case join(SharedOutcome<[UInt8]>)
            case build(SharedOutcome<[UInt8]>)
        }
        let key = CacheKey(record, link: link)
        var validated = validated
        let step = state.withLock { state -> Step in
            if let bytes = state.cachedBytes(key, version: record.version) { return .cached(bytes) }
            if let build = state.builds[key], build.version == record.version { return .join(build.outcome) }
            let outcome = SharedOutcome<[UInt8]>()
            state.builds[key] = Build(version: record.version, outcome: outcome)
            // The same change, not only the same version number: an order deleted with its order type and made again
            // starts at version 1 anew.
            if validated == nil, let prepared = state.prepared.value(forKey: key), prepared.record.version == record.version,
                prepared.record.changeSequence == record.changeSequence
            {
                validated = prepared.order
            }
            return .build(outcome)
        }
        if case .cached = step { metrics?.packageHit() } else { metrics?.packageMiss() }
        switch step {
        case .cached(let bytes):
            return bytes
        case .join(let outcome):
            do {
                return try await outcome.value()
            } catch is CancellationError where !Task.isCancelled {
                // The task building it was cancelled (a background build at shutdown), this one was not.
                return try await package(for: record, carrying: link, validated: validated)
            }
        case .build(let outcome):
            let result = await Result(awaiting: { try await loadOrBuild(record, carrying: link, validated: validated) })
            state.withLock { state in
                if state.builds[key]?.outcome === outcome { state.builds[key] = nil }
                if case .success(let bytes) = result {
                    state.remember(bytes, version: record.version, for: key)
                    if let prepared = state.prepared.value(forKey: key), prepared.record.version <= record.version {
                        _ = state.prepared.removeValue(forKey: key)
                    }
                }
            }
            outcome.finish(result)
            return try result.get()
        }
    }

    /// Queues a build of a new version, so the device's first fetch after Apple Pay finds it ready; `order` is the
    /// version as validated, so the build parses, validates and reads nothing.
    func prepare(_ record: OrderRecord, _ order: ValidatedOrder) {
        let build = PreparedBuild(record: record, order: order, tally: WorkTally.current)
        state.withLock { state in
            let key = CacheKey(record, link: nil)
            if let kept = state.prepared.value(forKey: key), kept.record.version > record.version { return }
            _ = state.prepared.setValue(build, forKey: key, cost: 1)
        }
        queue.yield(build)
    }

    /// Runs queued builds, as many at once as the CPU pool has threads; at graceful shutdown drops the queued ones and
    /// waits for the running ones, cancelling them after ``shutdownGrace``.
    ///
    /// More at once would store their packages together (``OrderStore``'s group commit) but queue their signatures in
    /// the CPU pool ahead of the order updates' validation: `bench carrier` at 500 events/s went from a p99 of 270 ms
    /// to 1.4 s with 16 per thread.
    package func run() async throws {
        let limit = cpu.threadCount
        await withTaskGroup(of: Bool.self) { group in
            var running = 0
            await withGracefulShutdownHandler {
                for await build in queued {
                    if running == limit, await group.next() != nil { running -= 1 }
                    if state.withLock({ $0.isShuttingDown }) { break }
                    group.addTask {
                        await WorkTally.$current.withValue(build.tally) { await self.buildInBackground(build.record, build.order) }
                        return false
                    }
                    running += 1
                }
            } onGracefulShutdown: {
                self.state.withLock { $0.isShuttingDown = true }
                self.queue.finish()
            }
            guard running > 0 else { return }
            group.addTask {
                try? await self.clock.sleep(for: Self.shutdownGrace)
                return true
            }
            while let timedOut = await group.next() {
                if timedOut {
                    logger.notice("shutdown cancels package builds still running", metadata: ["builds": .stringConvertible(running)])
                } else {
                    running -= 1
                    if running > 0 { continue }
                }
                group.cancelAll()
                break
            }
        }
    }

    private func buildInBackground(_ record: OrderRecord, _ order: ValidatedOrder) async {
        do {
            _ = try await package(for: record, validated: order)
        } catch {
            // Cancelled at shutdown: the package is built on the device's first fetch instead.
            guard !Task.isCancelled else { return }
            logger.error("package build failed", metadata: ["order": .string(record.orderIdentifier), "error": .string("\(error)")])
        }
    }

    /// The signing identity of an order type (``CredentialProvider/identity(for:)``).
    package func identity(for orderTypeIdentifier: String) async throws -> SigningIdentity {
        try await credentials.identity(for: orderTypeIdentifier)
    }

    /// Parses a signing identity (``CredentialProvider/parse(_:)``).
    func parse(_ configuration: IdentityConfig) async throws -> SigningIdentity {
        try await credentials.parse(configuration)
    }

    /// Drops the compressed form of an asset content that was replaced or deleted, so it does not wait in memory for
    /// the cache's byte limit to push it out.
    func forgetAssetContent(_ sha256Hex: String) {
        assetCache.remove(sha256Hex: sha256Hex)
    }

    /// Forgets an order type's credentials and packages; `replacement` (just parsed from its new configuration) is
    /// kept instead, so the next build need not parse it again.
    func invalidateIdentity(_ orderTypeIdentifier: String, replacement: (configuration: IdentityConfig, identity: SigningIdentity)? = nil) {
        credentials.invalidate(orderTypeIdentifier, replacement: replacement)
        forgetPackages { $0.orderTypeIdentifier == orderTypeIdentifier }
    }

    /// Forgets every package kept in memory: while changes went unheard, any order type may have been given a new
    /// certificate. Packages are then read from the store, where a rotation deleted its order type's. (Identities
    /// need not be forgotten: the provider compares each with the configuration it reads.)
    func invalidateAllPackages() {
        forgetPackages { _ in true }
    }

    private func forgetPackages(where predicate: (CacheKey) -> Bool) {
        let dropped = state.withLock { state in
            let before = state.memory.count
            state.memory.removeAll(where: predicate)
            _ = state.prepared.removeAll(where: predicate)
            return before - state.memory.count
        }
        if dropped > 0 { metrics?.packagesInvalidated(dropped) }
    }

    /// The merchant assets a document needs in its package: the referenced files (a walk's `referencedFiles`)
    /// with their scaled and localized variants, and every localization's order.strings. Two reads however many files:
    /// the names (unless the caller read them already, ``assetNames(merchantID:)``), then the needed ones' bytes.
    func assetFiles(referencedBy referenced: Set<String>, merchantID: String, names known: [String]? = nil) async throws -> [String: [UInt8]] {
        let names: [String]
        if let known { names = known } else { names = try await assetNames(merchantID: merchantID) }
        let needed = names.filter { name in
            let fileName = name.split(separator: "/").last.map(String.init) ?? name
            return fileName == "order.strings" || referenced.contains(fileName) || referenced.contains(PackageFileName.unscaled(fileName))
        }
        guard !needed.isEmpty else { return [:] }
        WorkTally.count(.assetRead)
        return Dictionary(uniqueKeysWithValues: try await store.assets(merchantID: merchantID, named: Set(needed)).map { ($0.info.name, $0.bytes) })
    }

    /// The names of the merchant's assets: what ``assetFiles(referencedBy:merchantID:names:)`` picks the needed ones from.
    func assetNames(merchantID: String) async throws -> [String] {
        WorkTally.count(.assetRead)
        return try await store.assets(merchantID: merchantID).map(\.name)
    }

    private func loadOrBuild(_ record: OrderRecord, carrying link: WalletLinkDevice?, validated: ValidatedOrder?) async throws -> [UInt8] {
        guard let link else {
            let bytes: [UInt8]
            if let validated {
                bytes = try await sign(record) { validated }
            } else if let stored = try await store.cachedPackage(
                type: record.orderTypeIdentifier, id: record.orderIdentifier, version: record.version)
            {
                return stored
            } else {
                bytes = try await build(record) { try JSONValue.parse(record.document) }
            }
            try await store.storePackage(type: record.orderTypeIdentifier, id: record.orderIdentifier, version: record.version, bytes: bytes)
            return bytes
        }
        // The link's device token stands in for the order's: the same order otherwise, validated as such.
        return try await build(record) { try JSONValue.parse(record.document).setting("authenticationToken", to: .string(link.token)) }
    }

    /// A stored version (or it with a link's device token) validated with the assets it references and signed: one
    /// walk, one read of the assets, two CPU-pool jobs.
    private func build(_ record: OrderRecord, document: @escaping @Sendable () throws -> JSONValue) async throws -> [UInt8] {
        let options = validationOptions
        let checked = try await cpu.run { OrderValidator.check(document: try document(), options: options) }
        let files = try await assetFiles(referencedBy: checked.referencedFiles, merchantID: record.merchantID)
        return try await sign(record) {
            do throws(OrderDecodingError) {
                return try checked.validated(package: PackageContents(files: files))
            } catch {
                throw OrderPackageError.invalidOrder(error.report)
            }
        }
    }

    /// Signs a validated order with the assets it was validated with, on one CPU-pool job.
    private func sign(_ record: OrderRecord, _ order: @escaping @Sendable () throws -> ValidatedOrder) async throws -> [UInt8] {
        let identity = try await identity(for: record.orderTypeIdentifier)
        let (assetCache, validationOptions, signingTime) = (assetCache, validationOptions, clock.date)
        return try await cpu.run {
            let builder = OrderPackageBuilder(signer: identity, validationOptions: validationOptions)
            return try builder.build(try order(), cache: assetCache, signingTime: signingTime).bytes
        }
    }
}
