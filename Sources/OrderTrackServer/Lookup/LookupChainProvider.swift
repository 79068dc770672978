import Foundation
import OrderLookupSigning
import OrderPersistence

/// The deployment's transaction-signing chain: read from the store, or generated and stored on first need (the first
/// start, or the first lookup after an upgrade). Instances racing to create it all end up with the first one stored.
actor LookupChainProvider {
    private let store: any LookupStore
    private let now: @Sendable () -> Date
    private var loaded: (chain: LookupSigningChain, signer: TransactionSigner)?

    init(store: any LookupStore, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// The chain and a signer with its leaf key.
    func current() async throws -> (chain: LookupSigningChain, signer: TransactionSigner) {
        if let loaded { return loaded }
        let chain = try await Self.ensure(store: store, now: now())
        let result = (chain: chain, signer: try await TransactionSigner(chain: chain))
        loaded = result
        return result
    }

    /// Reads the stored chain, storing a new one if there is none.
    static func ensure(store: any LookupStore, now: Date) async throws -> LookupSigningChain {
        if let record = try await store.lookupSigningChain() { return try LookupSigningChain(pem: pem(record)) }
        let generated = try LookupSigningChain.generate(deployment: "OrderTrack", now: now).pem
        let stored = try await store.storeLookupSigningChainIfAbsent(
            LookupSigningChainRecord(
                leafPrivateKeyPEM: generated.leafPrivateKey, leafCertificatePEM: generated.leafCertificate,
                intermediateCertificatePEM: generated.intermediateCertificate, rootCertificatePEM: generated.rootCertificate, createdAt: now))
        return try LookupSigningChain(pem: pem(stored))
    }

    private static func pem(_ record: LookupSigningChainRecord) -> LookupSigningChain.PEMFiles {
        LookupSigningChain.PEMFiles(
            leafPrivateKey: record.leafPrivateKeyPEM, leafCertificate: record.leafCertificatePEM,
            intermediateCertificate: record.intermediateCertificatePEM, rootCertificate: record.rootCertificatePEM)
    }
}
