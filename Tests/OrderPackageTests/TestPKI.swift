import ExternalTools
import Foundation
import OrderPackage
@_spi(CMS) import X509
import _CryptoExtras

/// A throwaway certificate hierarchy made with the openssl CLI: root → "WWDR" intermediate → Order Type ID leaves.
struct TestPKI: Sendable {
    let directory: URL
    let root: Certificate
    let intermediate: Certificate

    var rootPEMPath: String { directory.appendingPathComponent("root.pem").path }

    /// One hierarchy per test process; a second, unrelated one for wrong-root cases.
    static let shared = Result { try TestPKI(name: "main", leaves: ["order.com.example.test", "order.com.example.other"]) }
    static let foreign = Result { try TestPKI(name: "foreign", leaves: ["order.com.example.test"]) }

    init(name: String, leaves: [String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-pki-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var script = """
            set -e
            cd '\(directory.path)'
            printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=critical,keyCertSign,cRLSign\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > ca.ext
            printf 'basicConstraints=critical,CA:FALSE\\nkeyUsage=critical,digitalSignature\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > leaf.ext
            openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem -subj '/CN=Test Root CA \(name)' -days 30 \
              -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
            openssl req -new -newkey rsa:2048 -nodes -keyout wwdr.key -out wwdr.csr -subj '/CN=Test WWDR \(name)/OU=G4' 2>/dev/null
            openssl x509 -req -in wwdr.csr -CA root.pem -CAkey root.key -CAcreateserial -out wwdr.pem -days 30 -extfile ca.ext 2>/dev/null

            """
        for leaf in leaves {
            script += """
                openssl req -new -newkey rsa:2048 -nodes -keyout '\(leaf).key' -out '\(leaf).csr' \
                  -subj '/UID=\(leaf)/CN=Order Type ID: \(leaf)/OU=TEAM123456/O=Example Inc./C=US' 2>/dev/null
                openssl x509 -req -in '\(leaf).csr' -CA wwdr.pem -CAkey wwdr.key -CAcreateserial -out '\(leaf).pem' \
                  -days 30 -extfile leaf.ext 2>/dev/null

                """
        }
        _ = try ExternalTools.run("/bin/bash", ["-c", script])
        root = try Certificate(pemEncoded: String(contentsOf: directory.appendingPathComponent("root.pem"), encoding: .utf8))
        intermediate = try Certificate(
            pemEncoded: String(contentsOf: directory.appendingPathComponent("wwdr.pem"), encoding: .utf8)
        )
    }

    /// A signer for the leaf of `orderType`; `embedIntermediate: false` leaves the WWDR certificate out.
    func signer(_ orderType: String, embedIntermediate: Bool = true, claimedType: String?? = .none) throws -> TestSigner {
        let certificate = try Certificate(
            pemEncoded: String(contentsOf: directory.appendingPathComponent("\(orderType).pem"), encoding: .utf8)
        )
        let key = try _RSA.Signing.PrivateKey(
            pemRepresentation: String(contentsOf: directory.appendingPathComponent("\(orderType).key"), encoding: .utf8)
        )
        return TestSigner(
            orderTypeIdentifier: claimedType ?? orderType, certificate: certificate,
            intermediates: embedIntermediate ? [intermediate] : [], privateKey: Certificate.PrivateKey(key)
        )
    }
}

/// Signs like an Order Type ID identity: CMS detached, SHA-256 with RSA, signingTime, intermediate embedded.
struct TestSigner: PackageSigner {
    let orderTypeIdentifier: String?
    let certificate: Certificate
    let intermediates: [Certificate]
    let privateKey: Certificate.PrivateKey

    func signDetached(_ manifest: [UInt8], signingTime: Date) throws -> [UInt8] {
        try CMS.sign(
            manifest, signatureAlgorithm: .sha256WithRSAEncryption, additionalIntermediateCertificates: intermediates,
            certificate: certificate, privateKey: privateKey, signingTime: signingTime
        )
    }
}
