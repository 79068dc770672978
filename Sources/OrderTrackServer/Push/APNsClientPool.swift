import APNs
import OrderPersistence
import OrderSigning

/// One APNs client per order type, created on first use and kept for the connection's lifetime: with the order type's
/// provider token (.p8) when it has one, else with its Order Type ID certificate, which is also the APNs client
/// certificate for order pushes.
///
/// Another instance may change an order type's credential (a rotated certificate), so the stored configuration is
/// re-read every `recheckInterval`; a changed one replaces the client.
actor APNsClientPool {
    private struct Entry {
        var source: Source
        var client: APNsClient
        var checkedAt: ContinuousClock.Instant
    }

    /// What a client was made from.
    private struct Source: Equatable {
        var identity: IdentityConfig
        var token: APNsTokenConfig?
    }

    private let configuration: PushConfiguration
    private let recheckInterval: Duration
    private var entries: [String: Entry] = [:]

    init(configuration: PushConfiguration, recheckInterval: Duration) {
        self.configuration = configuration
        self.recheckInterval = recheckInterval
    }

    func client(
        for orderTypeIdentifier: String, store: any OrderStore, identity: (String) async throws -> SigningIdentity
    ) async throws -> APNsClient {
        let now = ContinuousClock.now
        let current = entries[orderTypeIdentifier]
        if let current {
            if now - current.checkedAt < recheckInterval { return current.client }
            // Marked before the read: the other sends of a fan-out keep the current client instead of each
            // re-reading the order type while this check is in flight.
            entries[orderTypeIdentifier]?.checkedAt = now
        }
        let stored: OrderTypeRecord?
        do {
            stored = try await store.orderType(orderTypeIdentifier)
        } catch {
            // A failed re-check (database briefly unreachable) is no reason to fail a push the current client can send.
            guard let current else { throw error }
            return current.client
        }
        guard let record = stored else {
            throw OrderStoreError.orderTypeNotFound(orderTypeIdentifier: orderTypeIdentifier)
        }
        let source = Source(identity: record.identity, token: record.apnsToken)
        if let entry = entries[orderTypeIdentifier], entry.source == source { return entry.client }
        let credential: APNsCredential
        if let token = record.apnsToken {
            credential = .token(p8PEM: token.p8PEM, keyID: token.keyID, teamID: token.teamID)
        } else {
            let signing = try await identity(orderTypeIdentifier)
            credential = try APNsCredential.certificate(chain: [signing.certificate] + signing.intermediates, privateKey: signing.privateKey)
        }
        // Another task may have made the same client while this one waited.
        if let entry = entries[orderTypeIdentifier], entry.source == source { return entry.client }
        let client = try APNsClient(
            configuration: APNsConfiguration(
                endpoint: configuration.endpoint, credential: credential, extraTrustRootsPEM: configuration.extraTrustRootsPEM,
                defaultExpiration: configuration.expiration, timeout: configuration.timeout))
        let replaced = entries.updateValue(Entry(source: source, client: client, checkedAt: now), forKey: orderTypeIdentifier)
        if let replaced { retire(replaced.client) }
        return client
    }

    /// Drops a client whose credential changed (a rotated certificate); the next push connects anew.
    func invalidate(_ orderTypeIdentifier: String) {
        guard let entry = entries.removeValue(forKey: orderTypeIdentifier) else { return }
        retire(entry.client)
    }

    /// Closes a replaced client once the sends still running on it have had their full timeout to finish.
    private func retire(_ client: APNsClient) {
        let grace = configuration.timeout
        Task {
            try? await Task.sleep(for: grace)
            try? await client.shutdown()
        }
    }

    /// Closes every connection; one client failing to close does not keep the others open.
    func shutdown() async {
        let closing = entries.values
        entries = [:]
        for entry in closing { try? await entry.client.shutdown() }
    }
}
