import Foundation
import TestSupport

/// Keys, certificates and containers made by the `openssl` CLI, generated once per test run.
///
/// Chain: `ca.pem` (self-signed CA) issues `wwdr.pem` (intermediate) which issues `cert.pem`, the
/// RSA leaf for `rsa.pem`, with subject UID and CN like Apple's Order Type ID certificates.
/// `ec-cert.pem` is a self-signed P-256 certificate for `ec.pem` whose only hint is its CN.
struct Fixtures: Sendable {
    static let password = "s3cret pässword"
    static let orderTypeIdentifier = "order.com.example.openssl"
    static let shared: Swift.Result<Fixtures, any Error> = Swift.Result { try Fixtures() }

    let directory: TemporaryDirectory

    private init() throws {
        let dir = try TemporaryDirectory()
        directory = dir
        let pass = "pass:\(Self.password)"
        func run(_ arguments: String...) throws { try ExternalTools.requireOpenSSL(arguments, in: dir.url) }

        // CA and intermediate, with the extensions a CA needs to verify.
        try dir.write("ca.ext", "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n")
        try dir.write("leaf.ext", "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n")
        try run("genrsa", "-out", "ca-key.pem", "2048")
        try run(
            "req", "-x509", "-new", "-key", "ca-key.pem", "-subj", "/CN=Test Root/O=OrderSigning Tests", "-days", "30",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            "-out", "ca.pem")
        try run("genrsa", "-out", "wwdr-key.pem", "2048")
        try run("req", "-new", "-key", "wwdr-key.pem", "-subj", "/CN=Test WWDR/O=OrderSigning Tests", "-out", "wwdr.csr")
        try run(
            "x509", "-req", "-in", "wwdr.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
            "-days", "30", "-extfile", "ca.ext", "-out", "wwdr.pem")

        // RSA leaf: PKCS#8 from genrsa, then every other encoding of the same key.
        try run("genrsa", "-out", "rsa.pem", "2048")
        try run(
            "req", "-new", "-key", "rsa.pem",
            "-subj", "/UID=\(Self.orderTypeIdentifier)/CN=Order Type ID: \(Self.orderTypeIdentifier)/OU=TEAM123456/O=Example/C=US",
            "-out", "leaf.csr")
        try run(
            "x509", "-req", "-in", "leaf.csr", "-CA", "wwdr.pem", "-CAkey", "wwdr-key.pem", "-CAcreateserial",
            "-days", "20", "-extfile", "leaf.ext", "-out", "cert.pem")
        try run("rsa", "-in", "rsa.pem", "-traditional", "-out", "rsa-pkcs1.pem")
        try run("pkcs8", "-topk8", "-in", "rsa.pem", "-v2", "aes-256-cbc", "-passout", pass, "-out", "rsa-aes256.pem")
        try run(
            "pkcs8", "-topk8", "-in", "rsa.pem", "-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1", "-passout", pass,
            "-out", "rsa-aes128-sha1.pem")
        try run(
            "pkcs8", "-topk8", "-in", "rsa.pem", "-v2", "aes-192-cbc", "-v2prf", "hmacWithSHA512", "-passout", pass,
            "-out", "rsa-aes192-sha512.pem")
        try run(
            "pkcs8", "-topk8", "-in", "rsa.pem", "-v2", "des3", "-v2prf", "hmacWithSHA384", "-passout", pass,
            "-out", "rsa-des3.pem")
        try run("pkcs8", "-topk8", "-in", "rsa.pem", "-scrypt", "-passout", pass, "-out", "rsa-scrypt.pem")
        try run("rsa", "-in", "rsa.pem", "-traditional", "-aes256", "-passout", pass, "-out", "rsa-legacy-aes.pem")
        try run("rsa", "-in", "rsa.pem", "-traditional", "-des3", "-passout", pass, "-out", "rsa-legacy-des3.pem")

        // An unrelated key for mismatch tests.
        try run("genrsa", "-out", "other.pem", "2048")

        // EC P-256 key (SEC1 with a separate EC PARAMETERS block) and a self-signed certificate.
        try run("ecparam", "-genkey", "-name", "prime256v1", "-out", "ec.pem")
        try run(
            "req", "-x509", "-new", "-key", "ec.pem", "-subj", "/CN=Order Type ID: order.com.example.ec/O=Example",
            "-days", "30", "-out", "ec-cert.pem")
        try run("pkcs8", "-topk8", "-in", "ec.pem", "-nocrypt", "-out", "ec-pkcs8.pem")
        try run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "ec384.pem")
        try run(
            "req", "-x509", "-new", "-key", "ec384.pem", "-subj", "/CN=P-384 test/O=Example", "-days", "30",
            "-out", "ec384-cert.pem")

        // PKCS#12 containers with the leaf, its key and the intermediate.
        let export = ["pkcs12", "-export", "-inkey", "rsa.pem", "-in", "cert.pem", "-certfile", "wwdr.pem", "-passout", pass]
        try ExternalTools.requireOpenSSL(export + ["-out", "modern.p12"], in: dir.url)
        try ExternalTools.requireOpenSSL(export + ["-legacy", "-out", "legacy.p12"], in: dir.url)
        try ExternalTools.requireOpenSSL(
            export + ["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1", "-out", "3des.p12"],
            in: dir.url)
        try ExternalTools.requireOpenSSL(
            export + ["-keypbe", "AES-128-CBC", "-certpbe", "NONE", "-macalg", "sha512", "-out", "aes128-plaincerts.p12"],
            in: dir.url)
        try ExternalTools.requireOpenSSL(export + ["-nomac", "-out", "nomac.p12"], in: dir.url)
        try ExternalTools.requireOpenSSL(export + ["-legacy", "-certpbe", "PBE-SHA1-RC4-128", "-out", "rc4.p12"], in: dir.url)
        try ExternalTools.requireOpenSSL(
            ["pkcs12", "-export", "-inkey", "rsa.pem", "-in", "cert.pem", "-passout", "pass:", "-out", "empty-password.p12"],
            in: dir.url)
    }

    func text(_ name: String) throws -> String { try directory.text(name) }
    func bytes(_ name: String) throws -> [UInt8] { try directory.bytes(name) }
}
