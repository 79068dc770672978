import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import OrderModel
import OrderPersistence
import OrderSigning
import UnixSignals

/// The OrderTrack server: the Wallet Orders web service under `/wallet`, the merchant API under `/api/v1`, Track in
/// Wallet under `/track`, and the routes of the modules above it (``OrderTrackRoutes``: the merchants' dashboard under
/// `/dashboard`).
public struct OrderTrackApplication: Sendable {
    public let configuration: ServerConfiguration
    public let store: any OrderStore
    public let application: Hummingbird.Application<RouterResponder<OrderTrackRequestContext>>
    /// Set on the first start of an empty data directory.
    public let developmentCredentials: DevelopmentCredentials?

    /// A ready-to-paste `curl` that creates an order with the development API key, after a first start.
    public var developmentExample: String? {
        developmentCredentials.map { DevelopmentBootstrap.exampleCommand($0, publicURL: configuration.publicURL) }
    }

    /// Opens the database (creating it and a development identity on first start) and assembles the routes: the
    /// server's own, then each of `routes` (the dashboard, for the command line and the tests).
    /// `onServerRunning` receives the bound port (useful with port 0). `clock` is the one source of time of the store
    /// and every part of the server: the wall clock unless a test controls time.
    public static func build(
        configuration: ServerConfiguration, logger: Logger, routes: [any OrderTrackRoutes] = [],
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }, clock: ServerClock = .system
    ) async throws -> OrderTrackApplication {
        try PortCheck.requireAvailable(host: configuration.host, port: configuration.port)
        let store = try await openStore(configuration: configuration, logger: logger, clock: clock)
        do {
            // SQLite has one writer process: claims left by a killed predecessor can be taken back at once.
            if configuration.database.isExclusive {
                try await store.releasePushLeases()
                try await store.releaseCarrierEventLeases()
                try await store.releaseWebhookLeases()
            }
            var credentials: DevelopmentCredentials?
            if configuration.isDevelopment {
                credentials = try await DevelopmentBootstrap.runIfEmpty(store: store, configuration: configuration, logger: logger, clock: clock)
                try await DevelopmentBootstrap.warnIfShared(store: store, logger: logger)
            }
            let application = try makeApplication(
                configuration: configuration, store: store, logger: logger, clock: clock, routes: routes, onServerRunning: onServerRunning)
            return OrderTrackApplication(configuration: configuration, store: store, application: application, developmentCredentials: credentials)
        } catch {
            try? await store.shutdown()
            throw error
        }
    }

    /// Opens (creating if needed) the configured database with the configured master key and applies pending
    /// migrations; `clock` dates what the store writes and times its waits (the system clock unless a test controls time). The data directory is made
    /// private to the server's user (0700).
    ///
    /// - Throws: ``ConfigurationError`` when the master key is missing or malformed, ``OrderStoreError`` when the
    ///   database cannot be opened or the key does not open its secrets.
    public static func openStore(configuration: ServerConfiguration, logger: Logger, clock: ServerClock = .system) async throws
        -> any OrderStore
    {
        try await openSQLStore(configuration: configuration, logger: logger, clock: clock)
    }

    static func openSQLStore(configuration: ServerConfiguration, logger: Logger, clock: ServerClock = .system) async throws
        -> SQLOrderStore
    {
        try DataDirectory.prepare(configuration.dataDirectory)
        let masterKey = try MasterKeyResolver.resolve(configuration, logger: logger)
        switch configuration.database {
        case .sqlite(let path):
            return try await SQLOrderStore.sqlite(path: path, masterKey: masterKey, logger: logger, now: { clock.date }, clock: clock)
        case .postgres(let postgres):
            return try await SQLOrderStore.postgres(postgres, masterKey: masterKey, logger: logger, now: { clock.date }, clock: clock)
        }
    }

    /// Re-seals every secret of the configured database with `newKey` (``SQLOrderStore/rotateMasterKey(to:)``).
    public static func rotateMasterKey(configuration: ServerConfiguration, to newKey: MasterKey, logger: Logger) async throws {
        let store = try await openSQLStore(configuration: configuration, logger: logger)
        do {
            try await store.rotateMasterKey(to: newKey)
        } catch {
            try? await store.shutdown()
            throw error
        }
        try await store.shutdown()
    }

    static func makeApplication(
        configuration: ServerConfiguration, store: any OrderStore, logger: Logger, clock: ServerClock, routes: [any OrderTrackRoutes],
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) throws -> Hummingbird.Application<RouterResponder<OrderTrackRequestContext>> {
        if !configuration.applePay.additionalTrustRoots.isEmpty {
            logger.warning(
                "Apple Pay tokens signed under roots other than Apple Root CA - G3 are accepted (--apple-pay-root): for tests and certification only")
        }
        if let gateway = configuration.applePay.testGateway {
            logger.warning(
                "merchant validation goes to a test gateway, not Apple (--apple-pay-gateway-test-url): for tests only",
                metadata: ["gateway": .string(gateway.origin.absoluteString)])
        }
        if configuration.isDevelopment {
            logger.notice(
                "development mode (--dev, the SQLite default): demo credentials on an empty store, and development certificates are accepted while one merchant uses the server; run production with --no-dev and a master key"
            )
        }
        // An image without the system's OpenSSL signs packages at about half the rate (docs/deployment.md).
        logger.info("package signatures with RSA keys by \(SigningIdentity.rsaSignatureLibrary)")
        if configuration.isInsecure {
            logger.warning("public URL is plain HTTP: Wallet only talks to https:// web services; use --public-url https://… in production")
        }
        let validationOptions = ValidationOptions(allowInsecureWebServiceURL: configuration.isInsecure)
        let cpu = CPUWorkPool()
        let credentials = CredentialProvider(store: store, cpu: cpu, logger: logger, keepsConfigurations: !configuration.database.isExclusive)
        let metrics = PushMetrics()
        let cacheMetrics = CacheMetrics(registry: metrics.registry)
        let packages = PackageService(
            store: store, credentials: credentials, cpu: cpu, validationOptions: validationOptions, capacityBytes: configuration.packageCacheBytes,
            logger: logger, metrics: cacheMetrics, clock: clock)
        let now: @Sendable () -> Date = { clock.date }
        var push = configuration.push
        push.pollInterval = min(push.pollInterval, configuration.database.outboxPollInterval)
        // Development mode never sends a development identity's pushes to Apple, which can only refuse them.
        if configuration.isDevelopment, push.isApplesAPNs { push.requireAppleIssuedIdentity = true }
        let dispatcher = PushDispatcher(
            store: store, credentials: credentials, configuration: push, metrics: metrics, logger: logger, clock: clock)
        let orderRecords = OrderRecordCache(
            store: store, isExclusive: configuration.database.isExclusive, capacityBytes: configuration.orderCacheBytes, metrics: cacheMetrics)
        let follower = StoreChangeFollower(
            store: store, orders: orderRecords, packages: packages, credentials: credentials, dispatcher: dispatcher, metrics: cacheMetrics,
            logger: logger)
        let carrierEvents = WakeSignal()
        let carrierInbox = CarrierInboxMetrics(registry: metrics.registry, store: store, clock: clock)
        let orders = OrderService(
            store: store, records: orderRecords, packages: packages, notifier: OutboxNotifier(store: store, dispatcher: dispatcher),
            webServiceURL: configuration.webServiceURL, validationOptions: validationOptions, cpu: cpu, logger: logger, clock: clock,
            trackingChanged: { carrierEvents.wake() })
        let carrierWorker = CarrierEventWorker(
            store: store, orders: orders, configuration: configuration.carriers, signal: carrierEvents, logger: logger, clock: clock)

        // HEAD is answered wherever GET is, with GET's headers and no body (health checkers use it).
        let router = Router(context: OrderTrackRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: ErrorEnvelopeMiddleware())
        router.add(middleware: ClientAddressMiddleware(header: configuration.limits.clientAddressHeader.flatMap { HTTPField.Name($0) }))
        router.add(
            middleware: RequestLimitMiddleware(limits: configuration.limits, secretFormPaths: Set(routes.flatMap(\.secretFormPaths)), clock: clock))
        router.get("healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
        }
        router.get("openapi.json") { _, _ in SerializedJSON(bytes: OpenAPIDocument.bytes) }
        router.get("metrics") { _, _ in
            await dispatcher.refreshQueueDepth()
            await carrierInbox.refresh()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render()))
            )
        }
        let fetches = FetchActivityRecorder(store: store, logger: logger, clock: clock)
        let walletLinks = WalletLinkService(store: store, orders: orders, publicURL: configuration.publicURL, now: now)
        WalletRoutes(
            records: orderRecords, walletLinks: walletLinks,
            devices: DeviceService(store: store, maximumRegistrationsPerOrder: configuration.limits.maximumRegistrationsPerOrder),
            packages: packages, fetches: fetches,
            deviceLog: DeviceLogWriter(
                budget: configuration.limits.deviceLogBytes.map {
                    TokenBuckets(limit: $0, trackedKeys: configuration.limits.trackedClients, clock: clock)
                }),
            maximumBodySize: configuration.maximumDeviceBodySize, clock: clock
        ).add(to: router)
        let assets = AssetService(store: store, packages: packages)
        let administration = Administration(
            store: store, trust: configuration.isDevelopment ? .developmentForSoleMerchant : .apple, parseIdentity: { try await packages.parse($0) },
            now: now)
        let keyUses = APIKeyUseRecorder(store: store, logger: logger, clock: clock)
        let orderTypes = OrderTypeService(
            administration: administration, packages: packages, credentialChanged: { orderType in await dispatcher.credentialChanged(orderType) })
        let merchantAPI = MerchantRoutes(
            orders: orders, assets: assets, administration: administration, packages: packages, cpu: cpu,
            maximumBodySize: configuration.maximumMerchantBodySize, orderTypes: orderTypes, keyUses: keyUses, now: now
        ).add(to: router)
        APIKeyRoutes(administration: administration, maximumBodySize: configuration.maximumMerchantBodySize).add(to: merchantAPI)
        BulkRoutes(bulk: BulkUpdates(orders: orders)).add(to: merchantAPI)
        EventRoutes(events: store).add(to: merchantAPI)
        InsightRoutes(insights: store, clock: clock).add(to: merchantAPI)
        let gateway = GatewayHTTPClient()
        let applePay = ApplePayService(
            store: store, orders: orders, cpu: cpu, gateway: gateway, configuration: configuration.applePay, logger: logger, now: now)
        ApplePayRoutes(
            applePay: applePay, playground: configuration.isDevelopment ? CheckoutPlayground(orders: orders, applePay: applePay) : nil, cpu: cpu,
            maximumBodySize: configuration.maximumMerchantBodySize
        ).add(to: merchantAPI)
        ProviderRoutes(administration: administration, walletLinks: walletLinks, maximumBodySize: configuration.maximumMerchantBodySize)
            .add(to: merchantAPI)
        let lookupRoutes = LookupRoutes(
            lookup: TransactionLookupService(store: store, configuration: configuration.lookup, logger: logger, now: now),
            keys: LookupKeyService(store: store, now: now), maximumBodySize: configuration.maximumMerchantBodySize)
        lookupRoutes.add(to: router)
        lookupRoutes.add(to: merchantAPI)
        // One service for the API and the dashboard: a delete through either forgets the webhook route's cached copy.
        let webhookConnections = CarrierConnectionCache(store: store, configuration: configuration.carriers, clock: clock)
        let carrierConnections = CarrierConnections(
            store: store, publicURL: configuration.publicURL, jwksHosts: configuration.carriers.jwksHosts, now: now,
            onDelete: { webhookConnections.forget($0) })
        let carrierRoutes = CarrierRoutes(
            connections: carrierConnections,
            receiver: CarrierWebhookReceiver(
                store: store, connections: webhookConnections,
                keys: ShipEngineKeys(
                    configuration: configuration.carriers, fetcher: configuration.carriers.keySetFetcher ?? HTTPKeySetFetcher(client: gateway),
                    clock: clock),
                clock: clock, wake: { carrierEvents.wake() }),
            maximumBodySize: configuration.maximumMerchantBodySize)
        carrierRoutes.add(to: router)
        carrierRoutes.add(to: merchantAPI)
        let webhookEndpoints = WebhookEndpoints(
            store: store, configuration: configuration.webhooks, isDevelopment: configuration.isDevelopment, now: now)
        WebhookRoutes(endpoints: webhookEndpoints, maximumBodySize: configuration.maximumMerchantBodySize).add(to: merchantAPI)
        let webhookWorker = WebhookWorker(
            store: store, configuration: configuration.webhooks, isDevelopment: configuration.isDevelopment, logger: logger, clock: clock)
        TrackRoutes(walletLinks: walletLinks, packages: packages, resources: try WebResources.load("Track", from: .module)).add(to: router)
        let services = OrderTrackServices(
            configuration: configuration, store: store, orders: orders, assets: assets, administration: administration, orderTypes: orderTypes,
            packages: packages, applePay: applePay, walletLinks: walletLinks, carrierConnections: carrierConnections,
            webhookEndpoints: webhookEndpoints, cpu: cpu, clock: clock)
        for added in routes { try added.add(to: router, services: services) }
        router.answerUnsupportedMethods()
        return Hummingbird.Application(
            router: router,
            server: .http1(
                configuration: HTTPServerLimits.http1Configuration(
                    idleTimeout: configuration.idleTimeout, requestBodyTimeout: configuration.requestBodyTimeout)),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "OrderTrack"),
            // Shut down in reverse order after the HTTP server: the last fetches' activity, pushes, then background builds,
            // then the gateway client and the CPU pool, and last the store, which every other service may still use.
            services: [
                store, cpu, gateway, packages, dispatcher, follower, carrierWorker, webhookWorker,
                RetentionService(store: store, configuration: configuration.retention, logger: logger, clock: clock), fetches, keyUses,
            ],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }

    /// Serves until SIGINT or SIGTERM, then finishes in-flight requests and closes the database: the store is the
    /// service group's first service, so a graceful shutdown closes it last; after a failure it is closed here, once
    /// every service has stopped.
    public func run() async throws {
        do {
            try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } catch {
            try? await store.shutdown()
            throw error
        }
        try await store.shutdown()
    }
}
