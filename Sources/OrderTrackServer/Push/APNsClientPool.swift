import APNsClient
import OrderSigning

/// One APNs client per order type, created on first use from the order type's signing identity (the Order Type ID
/// certificate is also the APNs client certificate for order pushes) and kept for the connection's lifetime.
actor APNsClientPool {
    private let configuration: PushConfiguration
    private var clients: [String: APNsClient] = [:]

    init(configuration: PushConfiguration) {
        self.configuration = configuration
    }

    func client(for orderTypeIdentifier: String, identity: (String) async throws -> SigningIdentity) async throws -> APNsClient {
        if let client = clients[orderTypeIdentifier] { return client }
        let signing = try await identity(orderTypeIdentifier)
        if let client = clients[orderTypeIdentifier] { return client }
        let credential = try APNsCredential.certificate(chain: [signing.certificate] + signing.intermediates, privateKey: signing.privateKey)
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
