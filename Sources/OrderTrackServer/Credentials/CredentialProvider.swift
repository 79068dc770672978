import APNs
import Foundation
import Logging
import OrderModel
import OrderPersistence
import OrderSigning
import Synchronization

/// An order type's credentials: its signing identity (packages; APNs certificate auth) and what pushes authenticate
/// with, from one read of its configuration.
struct OrderTypeCredentials: Sendable {
    /// What the credentials were made from: a change to either part means new credentials.
    struct Source: Equatable, Sendable {
        var identity: IdentityConfig
        var apnsToken: APNsTokenConfig?
    }

    var orderTypeIdentifier: String
    var source: Source
    var identity: SigningIdentity
    fileprivate var certificate: Result<APNsCredential, APNsClientError>

    /// The APNs credential: the order type's provider token when it has one, else its Order Type ID certificate,
    /// which is also the APNs client certificate for order pushes.
    func apnsCredential() throws -> APNsCredential {
        if let token = source.apnsToken { return .token(p8PEM: token.p8PEM, keyID: token.keyID, teamID: token.teamID) }
        do {
            return try certificate.get()
        } catch {
            throw OrderTrackError(.apnsCredentialUnusable, "the credential of \(orderTypeIdentifier) cannot authenticate to APNs: \(error)")
        }
    }
}

/// The one place order types' credentials are loaded, parsed and kept: package building and push delivery both ask
/// it. Identities are parsed once per configuration, on the CPU pool and in single flight, and kept parsed until
/// ``invalidate(_:replacement:)``. The configuration itself, which another instance may rotate, is read on every
/// request, except on a shared database while its change feed is followed (``followingChanges(_:)``): then it is kept
/// until the order type's change is announced (``invalidate(_:replacement:)``), which spares a package build a round
/// trip (on PostgreSQL one statement in four of a carrier event's package builds, 2026-11-30).
final class CredentialProvider: Sendable {
    private struct Parsed: Sendable {
        var identity: SigningIdentity
        var certificate: Result<APNsCredential, APNsClientError>

        init(_ identity: SigningIdentity) {
            self.identity = identity
            certificate = Result { () throws(APNsClientError) in
                try APNsCredential.certificate(chain: [identity.certificate] + identity.intermediates, privateKey: identity.privateKey)
            }
        }
    }

    private enum Slot {
        case loading(IdentityConfig, SharedOutcome<Parsed>)
        case loaded(IdentityConfig, Parsed)
    }

    /// Configurations kept while announcements of their changes are heard. `generation` counts forgettings, so that
    /// a read that began before one is not kept after it.
    private struct Configurations {
        var following = false
        var generation = 0
        var kept: [String: OrderTypeRecord] = [:]
    }

    private let store: any OrderTypeStore
    private let cpu: CPUWorkPool
    private let logger: Logger
    private let keepsConfigurations: Bool
    private let slots = Mutex([String: Slot]())
    private let configurations = Mutex(Configurations())

    /// - Parameter keepsConfigurations: whether configurations may be kept while the store's change feed is followed:
    ///   for a database other processes write (PostgreSQL), whose changes the feed announces. (On SQLite the read is
    ///   local and cheap, and a command-line change of an order type reaches a running server at once.)
    init(store: any OrderTypeStore, cpu: CPUWorkPool, logger: Logger, keepsConfigurations: Bool = false) {
        self.store = store
        self.cpu = cpu
        self.logger = logger
        self.keepsConfigurations = keepsConfigurations
    }

    /// Whether every change of an order type is announced from now on (``StoreChangeEvent/following``) or may be missed
    /// (``StoreChangeEvent/interrupted(reason:)``, which forgets every kept configuration).
    func followingChanges(_ following: Bool) {
        configurations.withLock { configurations in
            configurations.following = following && keepsConfigurations
            if !configurations.following { configurations.kept = [:] }
            // Either way: a read that began before following began may predate a change nobody announced.
            configurations.generation += 1
        }
    }

    /// The order type's configuration: kept, or read.
    private func configuration(of orderTypeIdentifier: String) async throws -> OrderTypeRecord? {
        let (kept, generation) = configurations.withLock { ($0.kept[orderTypeIdentifier], $0.generation) }
        if let kept { return kept }
        let record = try await store.orderType(orderTypeIdentifier)
        configurations.withLock { configurations in
            guard configurations.following, configurations.generation == generation, let record else { return }
            configurations.kept[orderTypeIdentifier] = record
        }
        return record
    }

    /// The order type's signing identity.
    func identity(for orderTypeIdentifier: String) async throws -> SigningIdentity {
        try await credentials(for: orderTypeIdentifier).identity
    }

    /// The order type's credentials, from its current configuration.
    ///
    /// - Throws: ``OrderTrackError`` (`orderTypeMissing`, `signingIdentityUnusable`), or the store's error when the
    ///   configuration cannot be read.
    func credentials(for orderTypeIdentifier: String) async throws -> OrderTypeCredentials {
        enum Step {
            case loaded(Parsed)
            case join(SharedOutcome<Parsed>)
            case load(SharedOutcome<Parsed>)
        }
        guard let record = try await configuration(of: orderTypeIdentifier) else {
            throw OrderTrackError(.orderTypeMissing, "order type \(orderTypeIdentifier) is not configured")
        }
        let configuration = record.identity
        let step = slots.withLock { slots -> Step in
            switch slots[orderTypeIdentifier] {
            case .loaded(configuration, let parsed):
                return .loaded(parsed)
            case .loading(configuration, let outcome):
                return .join(outcome)
            default:
                let outcome = SharedOutcome<Parsed>()
                slots[orderTypeIdentifier] = .loading(configuration, outcome)
                return .load(outcome)
            }
        }
        let parsed: Parsed
        switch step {
        case .loaded(let loaded):
            parsed = loaded
        case .join(let outcome):
            do {
                parsed = try await outcome.value()
            } catch is CancellationError where !Task.isCancelled {
                return try await credentials(for: orderTypeIdentifier)
            }
        case .load(let outcome):
            let result = await Result(awaiting: { Parsed(try await parseIdentity(configuration, of: orderTypeIdentifier)) })
            slots.withLock { slots in
                // Invalidated or replaced while loading: the result is still this caller's, but not remembered.
                guard case .loading(_, let current) = slots[orderTypeIdentifier], current === outcome else { return }
                slots[orderTypeIdentifier] = (try? result.get()).map { Slot.loaded(configuration, $0) }
            }
            outcome.finish(result)
            parsed = try result.get()
        }
        return OrderTypeCredentials(
            orderTypeIdentifier: orderTypeIdentifier, source: OrderTypeCredentials.Source(identity: configuration, apnsToken: record.apnsToken),
            identity: parsed.identity, certificate: parsed.certificate)
    }

    /// Parses a signing identity on the CPU pool: decrypting a PKCS#12 or key file derives keys for up to a second.
    func parse(_ configuration: IdentityConfig) async throws -> SigningIdentity {
        try await cpu.run { try Self.load(configuration) }
    }

    /// Forgets an order type's configuration and credentials; `replacement` (just parsed from its new configuration)
    /// is kept instead, so the next request need not parse it again.
    func invalidate(_ orderTypeIdentifier: String, replacement: (configuration: IdentityConfig, identity: SigningIdentity)? = nil) {
        configurations.withLock { configurations in
            configurations.kept[orderTypeIdentifier] = nil
            configurations.generation += 1
        }
        let slot = replacement.map { Slot.loaded($0.configuration, Parsed($0.identity)) }
        slots.withLock { $0[orderTypeIdentifier] = slot }
    }

    private func parseIdentity(_ configuration: IdentityConfig, of orderTypeIdentifier: String) async throws -> SigningIdentity {
        let identity: SigningIdentity
        do {
            identity = try await parse(configuration)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw OrderTrackError(.signingIdentityUnusable, "the signing identity of \(orderTypeIdentifier) cannot be loaded: \(error)")
        }
        if identity.expiresWithin(30 * 86_400) {
            logger.warning(
                "signing certificate expires within 30 days",
                metadata: [
                    "type": .string(orderTypeIdentifier), "not_valid_after": .string(DateTimeFormat.formatRFC3339(identity.notValidAfter)),
                ])
        }
        return identity
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
