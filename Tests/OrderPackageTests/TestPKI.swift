import Foundation
import OrderPackage
import TestSupport
@_spi(CMS) import X509
import _CryptoExtras

/// A throwaway certificate hierarchy made with the openssl CLI: root → "WWDR G4" intermediate → Order Type ID leaves,
/// plus a "WWDR G3" intermediate from the same root that issued none of them (the wrong intermediate to embed).
///
/// Certificates are issued with `openssl ca` so their validity can start in the past: packages are signed at
/// ``BuilderTests/signingTime`` (2025) and validity is judged at the signing time. That is why this hierarchy has a
/// script of its own rather than `OpenSSLCertificates`, whose `openssl x509 -req` (OpenSSL 3.0) starts every
/// certificate now.
struct TestPKI: Sendable {
    /// An Order Type ID leaf: its file name in `directory`, the order type in its subject, key type and validity.
    struct Leaf: Sendable {
        var file: String
        var orderType: String
        var elliptic = false
        var from = "20250101000000Z"
        /// Nil: 30 days from now.
        var until: String? = nil
        /// Nil: an Order Type ID subject (UID and common name) for `orderType`.
        var subject: String? = nil
    }

    let directory: URL
    let root: Certificate
    let intermediate: Certificate
    /// An intermediate of the same root that issued no leaf.
    let otherIntermediate: Certificate
    let leaves: [Leaf]

    var rootPEMPath: String { path("root.pem") }

    /// One hierarchy per test process; a second, unrelated one for wrong-root cases.
    static let shared = Result {
        try TestPKI(
            name: "main",
            leaves: [
                Leaf(file: "order.com.example.test", orderType: "order.com.example.test"),
                Leaf(file: "order.com.example.other", orderType: "order.com.example.other"),
                Leaf(file: "ec", orderType: "order.com.example.test", elliptic: true),
                Leaf(file: "expired", orderType: "order.com.example.test", until: "20251231000000Z"),
                Leaf(file: "developer", orderType: "order.com.example.test", subject: "/CN=Apple Development: Jane Doe/O=Example Inc./C=US"),
            ])
    }
    static let foreign = Result {
        try TestPKI(name: "foreign", leaves: [Leaf(file: "order.com.example.test", orderType: "order.com.example.test")])
    }

    init(name: String, leaves: [Leaf]) throws {
        self.leaves = leaves
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-pki-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let later = Date().addingTimeInterval(30 * 86_400)
        let soon = "\(later.formatted(.iso8601.year().month().day().dateSeparator(.omitted)))000000Z"
        var script = """
            set -e
            cd '\(directory.path)'
            printf '[ca]\\ndefault_ca=d\\n[d]\\ndatabase=index.txt\\nnew_certs_dir=.\\nserial=serial\\ndefault_md=sha256\\npolicy=p\\nunique_subject=no\\n[p]\\ncommonName=optional\\n' > ca.cnf
            : > index.txt
            echo 01 > serial
            printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=critical,keyCertSign,cRLSign\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > ca.ext
            printf 'basicConstraints=critical,CA:FALSE\\nkeyUsage=critical,digitalSignature\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > leaf.ext
            # issue FILE SUBJECT ISSUER|- EXTENSIONS FROM UNTIL rsa|ec
            issue() {
              if [ "$7" = ec ]; then openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"
              else openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" 2>/dev/null; fi
              openssl req -new -key "$1.key" -out "$1.csr" -subj "$2"
              if [ "$3" = - ]; then signing=(-selfsign -keyfile "$1.key"); else signing=(-cert "$3.pem" -keyfile "$3.key"); fi
              openssl ca -batch -notext -preserveDN -config ca.cnf "${signing[@]}" -in "$1.csr" -out "$1.pem" \
                -extfile "$4" -startdate "$5" -enddate "$6" 2>/dev/null
            }
            issue root '/CN=Test Root CA \(name)' - ca.ext 20250101000000Z \(soon) rsa
            issue wwdr '/CN=Test WWDR \(name)/OU=G4' root ca.ext 20250101000000Z \(soon) rsa
            issue wwdr-g3 '/CN=Test WWDR \(name)/OU=G3' root ca.ext 20250101000000Z \(soon) rsa

            """
        for leaf in leaves {
            let subject = leaf.subject ?? "/UID=\(leaf.orderType)/CN=Order Type ID: \(leaf.orderType)/OU=TEAM123456/O=Example Inc./C=US"
            script += """
                issue '\(leaf.file)' '\(subject)' wwdr leaf.ext \(leaf.from) \(leaf.until ?? soon) \(leaf.elliptic ? "ec" : "rsa")

                """
        }
        _ = try ExternalTools.run("/bin/bash", ["-c", script])
        let folder = directory
        let load = { (file: String) throws -> Certificate in
            try Certificate(pemEncoded: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
        root = try load("root.pem")
        intermediate = try load("wwdr.pem")
        otherIntermediate = try load("wwdr-g3.pem")
    }

    /// The path of `file` in the hierarchy's directory.
    func path(_ file: String) -> String { directory.appendingPathComponent(file).path }

    /// A signer for the RSA leaf `file`; `embedIntermediate: false` leaves the WWDR certificate out, `intermediates`
    /// embeds others instead.
    func signer(
        _ file: String, embedIntermediate: Bool = true, intermediates: [Certificate]? = nil, claimedType: String?? = .none
    ) throws -> TestSigner {
        let certificate = try Certificate(pemEncoded: String(contentsOfFile: path("\(file).pem"), encoding: .utf8))
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: path("\(file).key"), encoding: .utf8))
        return TestSigner(
            orderTypeIdentifier: claimedType ?? leaves.first { $0.file == file }?.orderType, certificate: certificate,
            intermediates: intermediates ?? (embedIntermediate ? [intermediate] : []), privateKey: Certificate.PrivateKey(key)
        )
    }

    /// A detached signature of `manifest` made by `openssl cms -sign` with the leaf `file` and the WWDR intermediate,
    /// plus `options` (`-keyid`, `-noattr`, `-stream -indef`...), DER output.
    func opensslSignature(_ manifest: [UInt8], by file: String, _ options: [String] = []) throws -> [UInt8] {
        let scratch = directory.appendingPathComponent("manifest-\(UUID().uuidString)")
        try Data(manifest).write(to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        return try ExternalTools.run(
            "/usr/bin/openssl",
            [
                "cms", "-sign", "-binary", "-in", scratch.path, "-signer", path("\(file).pem"), "-inkey", path("\(file).key"),
                "-certfile", path("wwdr.pem"), "-md", "sha256", "-outform", "DER",
            ] + options)
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
