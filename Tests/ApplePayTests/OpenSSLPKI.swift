import Foundation
import TestSupport

/// A stand-in for Apple's PKI made by the openssl command line: a root, an intermediate and a signing leaf with
/// Apple's marker extensions (plus copies without them), and EC and RSA merchant payment-processing certificates.
/// Tokens are encrypted by Python `cryptography` and signed by `openssl cms -sign`, independently of our code.
struct OpenSSLPKI: Sendable {
    // Short enough that "Apple Pay Payment Processing:" + it fits the 64 characters of a CN.
    static let merchantIdentifier = "merchant.com.example.test"
    static let shared = Result { try OpenSSLPKI() }

    let files: OpenSSLCertificates
    var directory: URL { files.directory }

    func path(_ name: String) -> String { files.path(name) }
    func text(_ name: String) throws -> String { try files.text(name) }

    static func openssl(_ arguments: [String]) throws {
        _ = try ExternalTools.run("/usr/bin/env", ["openssl"] + arguments)
    }

    private init() throws {
        let files = try OpenSSLCertificates("applepay-pki")
        self.files = files
        let merchantHash = try ExternalTools.python(
            "import hashlib; print(hashlib.sha256(b'\(Self.merchantIdentifier)').hexdigest().upper(), end='')")
        try files.write(
            """
            [root]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            [intermediate]
            basicConstraints = critical, CA:TRUE, pathlen:0
            keyUsage = critical, keyCertSign, cRLSign
            1.2.840.113635.100.6.2.14 = DER:05:00
            [intermediateWithoutMarker]
            basicConstraints = critical, CA:TRUE, pathlen:0
            keyUsage = critical, keyCertSign, cRLSign
            [leaf]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            1.2.840.113635.100.6.29 = DER:05:00
            [leafWithoutMarker]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            [merchant]
            1.2.840.113635.100.6.32 = ASN1:UTF8String:\(String(decoding: merchantHash, as: UTF8.self))

            """, to: "extensions.cnf")
        func section(_ name: String) -> OpenSSLCertificates.Extensions { .file("extensions.cnf", section: name) }
        for name in ["root", "intermediate", "leaf", "merchant-ec", "foreign-root"] { try files.key(name, .ec) }
        try files.key("merchant-rsa", .rsa)
        try files.selfSigned("root", subject: "/CN=Test Apple Root CA/O=OrderTrack Tests", extensions: section("root"))
        try files.selfSigned("foreign-root", subject: "/CN=Foreign Root/O=Elsewhere", extensions: section("root"))
        try FileManager.default.copyItem(atPath: path("intermediate.key"), toPath: path("intermediate-unmarked.key"))
        try FileManager.default.copyItem(atPath: path("leaf.key"), toPath: path("leaf-unmarked.key"))
        try files.issue(
            "intermediate", subject: "/CN=Test Application Integration CA/O=OrderTrack Tests", by: "root", extensions: section("intermediate"))
        try files.issue(
            "intermediate-unmarked", subject: "/CN=Test Unmarked Integration CA/O=OrderTrack Tests", by: "root",
            extensions: section("intermediateWithoutMarker"))
        try files.issue("leaf", subject: "/CN=ecc-smp-broker-sign_UC4-TEST/O=OrderTrack Tests", by: "intermediate", extensions: section("leaf"))
        try files.issue(
            "leaf-unmarked", subject: "/CN=ecc-smp-broker-sign_UC4-TEST/O=OrderTrack Tests", by: "intermediate",
            extensions: section("leafWithoutMarker"))
        try FileManager.default.copyItem(atPath: path("leaf.key"), toPath: path("leaf-under-unmarked.key"))
        try files.issue(
            "leaf-under-unmarked", subject: "/CN=ecc-smp-broker-sign_UC4-TEST/O=OrderTrack Tests", by: "intermediate-unmarked",
            extensions: section("leaf"))
        try FileManager.default.copyItem(atPath: path("leaf.key"), toPath: path("leaf-foreign.key"))
        try files.issue("leaf-foreign", subject: "/CN=ecc-smp-broker-sign_UC4-TEST/O=Elsewhere", by: "foreign-root", extensions: section("leaf"))
        let merchantSubject = "/UID=\(Self.merchantIdentifier)/CN=Apple Pay Payment Processing:\(Self.merchantIdentifier)/O=OrderTrack Tests"
        for kind in ["ec", "rsa"] {
            try files.issue("merchant-\(kind)", subject: merchantSubject, by: "root", extensions: section("merchant"))
        }
    }

    /// A token for the `merchant` ("ec": EC_v1, "rsa": RSA_v1) certificate, encrypting `payload`, signed by the
    /// `signer` leaf (whose chain is `chain`) with `openssl cms -sign -stream` (BER, indefinite lengths, like Apple).
    func token(payload: String, merchant: String, signer: String = "leaf", chain: String = "intermediate") throws -> [UInt8] {
        let work = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let header = try ExternalTools.python(Self.encryptScript, input: Array("\(path("merchant-\(merchant).pem"))\n\(work.path)\n\(payload)".utf8))
        try Self.openssl([
            "cms", "-sign", "-binary", "-stream", "-md", "sha256", "-in", work.appendingPathComponent("signed.bin").path,
            "-signer", path("\(signer).pem"), "-inkey", path("\(signer).key"), "-certfile", path("\(chain).pem"),
            "-outform", "DER", "-out", work.appendingPathComponent("signature.der").path,
        ])
        let signature = try Data(contentsOf: work.appendingPathComponent("signature.der"))
        var token = String(decoding: header, as: UTF8.self)
        token.removeLast() // the closing brace
        return Array((token + ", \"signature\": \"\(signature.base64EncodedString())\"}").utf8)
    }

    /// Reads the merchant certificate path, a work directory and the payload on stdin; encrypts like Apple (EC_v1:
    /// ECDH P-256 + Apple's KDF + AES-256-GCM; RSA_v1: RSA-OAEP-SHA256 wrapped AES-128-GCM key; 16-byte zero IV);
    /// writes the signed bytes to signed.bin and prints paymentData without its signature.
    static let encryptScript = """
        import base64, hashlib, json, os, sys
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        certificate_path, work, payload = sys.stdin.read().split("\\n", 2)
        certificate = x509.load_pem_x509_certificate(open(certificate_path, "rb").read())
        public_key = certificate.public_key()
        spki = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        transaction_id = os.urandom(32)
        header = {"publicKeyHash": base64.b64encode(hashlib.sha256(spki).digest()).decode(), "transactionId": transaction_id.hex()}
        if isinstance(public_key, ec.EllipticCurvePublicKey):
            ephemeral = ec.generate_private_key(ec.SECP256R1())
            z = ephemeral.exchange(ec.ECDH(), public_key)
            uid = certificate.subject.get_attributes_for_oid(x509.NameOID.USER_ID)[0].value
            key = hashlib.sha256(b"\\x00\\x00\\x00\\x01" + z + b"\\x0did-aes256-GCMApple" + hashlib.sha256(uid.encode()).digest()).digest()
            first = ephemeral.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
            header["ephemeralPublicKey"] = base64.b64encode(first).decode()
            version = "EC_v1"
        else:
            key = os.urandom(16)
            first = public_key.encrypt(key, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
            header["wrappedKey"] = base64.b64encode(first).decode()
            version = "RSA_v1"
        data = AESGCM(key).encrypt(b"\\x00" * 16, payload.encode(), None)
        open(os.path.join(work, "signed.bin"), "wb").write(first + data + transaction_id)
        print(json.dumps({"version": version, "data": base64.b64encode(data).decode(), "header": header}), end="")
        """
}
