import APNs
import Foundation

/// One APNs client per order type, created on first use and kept for the connection's lifetime, with the credential
/// the ``CredentialProvider`` gives for the order type.
///
/// Another instance may change an order type's credential (a rotated certificate), so the stored configuration is
/// re-read every `recheckInterval`; a changed one replaces the client. Replaced clients are closed by
/// ``closeRetired()``, which the dispatcher runs as one of its child tasks. Clients come from `connect`: an
/// ``APNsClient`` in the server, a stand-in that answers without sockets in tests of the dispatcher.
actor APNsClientPool {
    private struct Entry {
        var source: OrderTypeCredentials.Source
        var client: any APNsSending
        var checkedAt: Date
    }

    private let configuration: PushConfiguration
    private let credentials: CredentialProvider
    private let recheckInterval: TimeInterval
    private let clock: ServerClock
    private let connect: @Sendable (APNsConfiguration) throws -> any APNsSending
    private var entries: [String: Entry] = [:]
    private let retired: AsyncStream<any APNsSending>
    private let retiring: AsyncStream<any APNsSending>.Continuation

    init(
        configuration: PushConfiguration, credentials: CredentialProvider, clock: ServerClock,
        connect: @escaping @Sendable (APNsConfiguration) throws -> any APNsSending
    ) {
        self.configuration = configuration
        self.credentials = credentials
        self.recheckInterval = configuration.credentialRecheckInterval.seconds
        self.clock = clock
        self.connect = connect
        (retired, retiring) = AsyncStream.makeStream(of: (any APNsSending).self)
    }

    func client(for orderTypeIdentifier: String) async throws -> any APNsSending {
        let now = clock.date
        let current = entries[orderTypeIdentifier]
        if let current {
            if now.timeIntervalSince(current.checkedAt) < recheckInterval { return current.client }
            // Marked before the read: the other sends of a fan-out keep the current client instead of each
            // re-reading the order type while this check is in flight.
            entries[orderTypeIdentifier]?.checkedAt = now
        }
        let found: OrderTypeCredentials
        do {
            found = try await credentials.credentials(for: orderTypeIdentifier)
        } catch let error where !(error is OrderTrackError) {
            // A failed re-check (database briefly unreachable) is no reason to fail a push the current client can send.
            guard let current else { throw error }
            return current.client
        }
        if configuration.requireAppleIssuedIdentity,
            let refusal = await OrderTypeTrust.apple.refusal(of: found.identity, for: orderTypeIdentifier, now: now)
        {
            throw OrderTrackError(
                .developmentIdentityNotSent,
                "not sent to Apple's APNs, which refuses a development identity (\(refusal)); start serve with --mock-apns to see "
                    + "pushes on this machine, or configure the Order Type ID certificate from the Apple developer account")
        }
        // Another task may have made the same client while this one waited.
        if let entry = entries[orderTypeIdentifier], entry.source == found.source { return entry.client }
        let client = try connect(
            APNsConfiguration(
                endpoint: configuration.endpoint, credential: try found.apnsCredential(), extraTrustRootsPEM: configuration.extraTrustRootsPEM,
                defaultExpiration: configuration.expiration, timeout: configuration.timeout))
        let replaced = entries.updateValue(Entry(source: found.source, client: client, checkedAt: now), forKey: orderTypeIdentifier)
        if let replaced { await retire(replaced.client) }
        return client
    }

    /// Drops a client whose credential changed (a rotated certificate); the next push connects anew.
    func invalidate(_ orderTypeIdentifier: String) async {
        guard let entry = entries.removeValue(forKey: orderTypeIdentifier) else { return }
        await retire(entry.client)
    }

    /// Hands a replaced client to ``closeRetired()``; once that has ended (shutdown), closes it at once.
    private func retire(_ client: any APNsSending) async {
        if case .terminated = retiring.yield(client) { try? await client.shutdown() }
    }

    /// Closes each replaced client once the sends still running on it have had their full timeout to finish; when
    /// cancelled (at shutdown, after the last send) closes those still waiting at once.
    nonisolated func closeRetired() async {
        let (grace, clock) = (configuration.timeout, clock)
        await withDiscardingTaskGroup { group in
            for await client in retired {
                group.addTask {
                    try? await clock.sleep(for: grace)
                    try? await client.shutdown()
                }
            }
        }
    }

    /// Closes every connection; one client failing to close does not keep the others open.
    func shutdown() async {
        retiring.finish()
        let closing = entries.values
        entries = [:]
        for entry in closing { try? await entry.client.shutdown() }
    }
}
