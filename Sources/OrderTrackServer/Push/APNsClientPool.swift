import APNsClient
import OrderSigning
import OrderStore

/// One APNs client per order type, created on first use and kept for the connection's lifetime: with the order type's
/// provider token (.p8) when it has one, else with its Order Type ID certificate, which is also the APNs client
/// certificate for order pushes.
actor APNsClientPool {
    private let configuration: PushConfiguration
    private var clients: [String: APNsClient] = [:]

    init(configuration: PushConfiguration) {
        self.configuration = configuration
    }

    func client(
        for orderTypeIdentifier: String, store: any OrderStore, identity: (String) async throws -> SigningIdentity
    ) async throws -> APNsClient {
        if let client = clients[orderTypeIdentifier] { return client }
        let credential: APNsCredential
        if let token = try await store.orderType(orderTypeIdentifier)?.apnsToken {
            credential = .token(p8PEM: token.p8PEM, keyID: token.keyID, teamID: token.teamID)
        } else {
            let signing = try await identity(orderTypeIdentifier)
            credential = try APNsCredential.certificate(chain: [signing.certificate] + signing.intermediates, privateKey: signing.privateKey)
        }
        if let client = clients[orderTypeIdentifier] { return client }
        let client = try APNsClient(configuration: APNsConfiguration(
            endpoint: configuration.endpoint, credential: credential, extraTrustRootsPEM: configuration.extraTrustRootsPEM,
            defaultExpiration: configuration.expiration, timeout: configuration.timeout))
        clients[orderTypeIdentifier] = client
        return client
    }

    /// Drops a client whose credential changed (a rotated certificate); the next push connects anew.
    func invalidate(_ orderTypeIdentifier: String) async {
        guard let client = clients.removeValue(forKey: orderTypeIdentifier) else { return }
        try? await client.shutdown()
    }

    /// Closes every connection; one client failing to close does not keep the others open.
    func shutdown() async {
        let closing = clients.values
        clients = [:]
        for client in closing { try? await client.shutdown() }
    }
}
