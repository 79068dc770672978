import Crypto
import Foundation
import MockAPNs
import SwiftASN1
import X509

/// `serve --mock-apns`: the bundled mock APNs on a free loopback port, with a throwaway certificate authority the
/// server is told to trust, so a newcomer sees each push of the whole loop on one machine without Apple's APNs.
struct LocalMockAPNs {
    let server: MockAPNsServer
    /// The root the server's APNs client trusts for the mock (PEM).
    let trustRootPEM: String
    var endpoint: URL { URL(string: "https://127.0.0.1:\(server.port)")! }

    /// Starts the mock; `onPush` hears every answered push, and the mock keeps none (`requests()` stays empty).
    static func start(onPush: @escaping @Sendable (RecordedPush) -> Void) async throws -> LocalMockAPNs {
        let (rootPEM, chainPEM, keyPEM) = try certificates()
        var configuration = MockAPNsConfiguration(tlsCertificateChainPEM: chainPEM, tlsPrivateKeyPEM: keyPEM)
        configuration.onRequest = onPush
        configuration.keepsRequests = false
        return LocalMockAPNs(server: try await MockAPNsServer.start(configuration), trustRootPEM: rootPEM)
    }

    /// A root CA and a server certificate for 127.0.0.1 it issued, valid for a day: made anew at every start.
    private static func certificates() throws -> (root: String, chain: String, key: String) {
        let rootKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let now = Date()
        let rootName = try DistinguishedName { CommonName("OrderTrack mock APNs root (development only)") }
        let rootPublic = Certificate.PublicKey(rootKey.publicKey)
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: rootPublic, notValidBefore: now.addingTimeInterval(-3_600),
            notValidAfter: now.addingTimeInterval(86_400), issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
                SubjectKeyIdentifier(hash: rootPublic)
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey))
        let leafName = try DistinguishedName { CommonName("127.0.0.1") }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: Certificate.PublicKey(leafKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(86_400), issuer: rootName,
            subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: rootPublic).keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey))
        return (try root.serializeAsPEM().pemString, try leaf.serializeAsPEM().pemString, leafKey.pemRepresentation)
    }

    /// One console line per push, as a person watching the loop reads it.
    static func line(_ push: RecordedPush) -> String {
        let device = "…" + push.deviceToken.suffix(8)
        let outcome = push.accepted ? "delivered" : "refused \(push.status) \(push.reason ?? "")"
        return "mock APNs: push for \(push.topic) to device \(device): \(outcome)"
    }
}
