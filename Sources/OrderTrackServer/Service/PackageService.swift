import Foundation
import Logging
import OrderModel
import OrderPackage
import OrderSigning
import OrderStore

/// Signed packages of orders: each order version is built and signed once, then served from memory or the store.
actor PackageService {
    private struct CacheKey: Hashable {
        var orderTypeIdentifier: String
        var orderIdentifier: String
    }

    private struct CachedPackage {
        var version: Int
        var bytes: [UInt8]
        var lastUse: UInt64
    }

    private let store: any OrderStore
    private let validationOptions: ValidationOptions
    private let logger: Logger
    private let capacityBytes: Int
    private let assetCache = AssetCache()
    private var identities: [String: (configuration: IdentityConfig, identity: SigningIdentity)] = [:]
    private var memory: [CacheKey: CachedPackage] = [:]
    private var memoryBytes = 0
    private var useCounter: UInt64 = 0
    private var inFlight: [CacheKey: (version: Int, task: Task<[UInt8], any Error>)] = [:]

    init(store: any OrderStore, validationOptions: ValidationOptions, capacityBytes: Int, logger: Logger) {
        self.store = store
        self.validationOptions = validationOptions
        self.capacityBytes = capacityBytes
        self.logger = logger
    }

    /// The signed package of the order's version; built at most once per version, even under concurrent requests.
    func package(for record: OrderRecord) async throws -> [UInt8] {
        let key = CacheKey(orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier)
        if var cached = memory[key], cached.version == record.version {
            useCounter += 1
            cached.lastUse = useCounter
            memory[key] = cached
            return cached.bytes
        }
        if let running = inFlight[key], running.version == record.version {
            return try await running.task.value
        }
        let task = Task { try await self.loadOrBuild(record) }
        inFlight[key] = (record.version, task)
        defer {
            if inFlight[key]?.version == record.version { inFlight[key] = nil }
        }
        let bytes = try await task.value
        remember(bytes, version: record.version, for: key)
        return bytes
    }

    /// Starts building a new version in the background, so the device's first fetch after Apple Pay finds it ready.
    nonisolated func prepare(_ record: OrderRecord) {
        Task {
            do {
                _ = try await self.package(for: record)
            } catch {
                self.logger.error("package build failed", metadata: ["order": .string(record.orderIdentifier), "error": .string("\(error)")])
            }
        }
    }

    /// The signing identity of an order type, parsed once per configuration. The configuration is read each time
    /// (once per package build): another instance may have rotated the certificate.
    func identity(for orderTypeIdentifier: String) async throws -> SigningIdentity {
        guard let record = try await store.orderType(orderTypeIdentifier) else {
            throw APIError(status: .internalServerError, kind: .api, code: "order_type_missing", message: "order type \(orderTypeIdentifier) is not configured")
        }
        if let cached = identities[orderTypeIdentifier], cached.configuration == record.identity { return cached.identity }
        let identity: SigningIdentity
        do {
            identity = try Self.load(record.identity)
        } catch {
            throw APIError(status: .internalServerError, kind: .api, code: "signing_identity_unusable",
                message: "the signing identity of \(orderTypeIdentifier) cannot be loaded: \(error)")
        }
        if identity.expiresWithin(30 * 86_400) {
            logger.warning("signing certificate expires within 30 days", metadata: [
                "type": .string(orderTypeIdentifier), "not_valid_after": .string(DateTimeFormat.formatRFC3339(identity.notValidAfter)),
            ])
        }
        identities[orderTypeIdentifier] = (record.identity, identity)
        return identity
    }

    func invalidateIdentity(_ orderTypeIdentifier: String) {
        identities[orderTypeIdentifier] = nil
        for key in memory.keys where key.orderTypeIdentifier == orderTypeIdentifier {
            memoryBytes -= memory[key]!.bytes.count
            memory[key] = nil
        }
    }

    /// The merchant assets a document needs in its package: referenced files with their scaled and localized
    /// variants, and every localization's order.strings.
    nonisolated func assetFiles(for document: JSONValue, merchantID: String) async throws -> [String: [UInt8]] {
        let referenced = OrderValidator.referencedFiles(in: document)
        var files: [String: [UInt8]] = [:]
        for info in try await store.assets(merchantID: merchantID) {
            let fileName = info.name.split(separator: "/").last.map(String.init) ?? info.name
            let needed = fileName == "order.strings" || referenced.contains(fileName) || referenced.contains(PackageFileName.unscaled(fileName))
            guard needed, let asset = try await store.asset(merchantID: merchantID, name: info.name) else { continue }
            files[info.name] = asset.bytes
        }
        return files
    }

    private func loadOrBuild(_ record: OrderRecord) async throws -> [UInt8] {
        if let stored = try await store.cachedPackage(type: record.orderTypeIdentifier, id: record.orderIdentifier, version: record.version) {
            return stored
        }
        let identity = try await identity(for: record.orderTypeIdentifier)
        let document = try JSONValue.parse(record.document)
        let assets = try AssetSet(files: try await assetFiles(for: document, merchantID: record.merchantID), cache: assetCache)
        let builder = OrderPackageBuilder(signer: identity, validationOptions: validationOptions)
        let built = try builder.build(orderJSON: record.document, assets: assets, signingTime: Date())
        try await store.storePackage(type: record.orderTypeIdentifier, id: record.orderIdentifier, version: record.version, bytes: built.bytes)
        return built.bytes
    }

    private func remember(_ bytes: [UInt8], version: Int, for key: CacheKey) {
        guard bytes.count <= capacityBytes else { return }
        if let previous = memory[key] { memoryBytes -= previous.bytes.count }
        useCounter += 1
        memory[key] = CachedPackage(version: version, bytes: bytes, lastUse: useCounter)
        memoryBytes += bytes.count
        // Evict the least recently used quarter at once, so eviction's scan is rare.
        if memoryBytes > capacityBytes {
            let victims = memory.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(max(1, memory.count / 4))
            for (victim, package) in victims where victim != key {
                memory[victim] = nil
                memoryBytes -= package.bytes.count
            }
        }
    }

    static func load(_ configuration: IdentityConfig) throws -> SigningIdentity {
        switch configuration {
        case .directory(let path):
            return try SigningIdentity(directory: URL(fileURLWithPath: path), password: nil)
        case .files(let certificatePath, let keyPath, let keyPassword, let wwdrPath):
            return try SigningIdentity(
                certificatePEM: String(contentsOfFile: certificatePath, encoding: .utf8),
                privateKeyPEM: String(contentsOfFile: keyPath, encoding: .utf8),
                keyPassword: keyPassword,
                intermediatesPEM: try wwdrPath.map { try String(contentsOfFile: $0, encoding: .utf8) })
        case .pkcs12(let bytes, let password, let wwdrPEM):
            return try SigningIdentity(pkcs12: bytes, password: password, intermediatesPEM: wwdrPEM)
        }
    }
}
