import Foundation
import TestSupport

/// Real certificates and keys made by the openssl CLI for one test run: a CA, the mock's server certificate
/// for 127.0.0.1/localhost, a client CA with a client certificate, and a P-256 .p8 key with its public key.
struct TestPKI: Sendable {
    let directory: URL
    let caPEM: String
    let serverCertificatePEM: String
    let serverKeyPEM: String
    let clientCAPEM: String
    let clientCertificatePEM: String
    let clientKeyPEM: String
    let p8PEM: String
    let publicKeyPEM: String

    static let shared: TestPKI = {
        do { return try TestPKI() } catch { preconditionFailure("cannot make test certificates with openssl: \(error)") }
    }()

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-pki-\(UUID().uuidString)")
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let dir = directory.path
        func openssl(_ arguments: String...) throws {
            _ = try ExternalTools.run("/usr/bin/openssl", arguments, in: directory)
        }
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: "\(dir)/server.ext", atomically: true, encoding: .utf8)
        try "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n".write(toFile: "\(dir)/client.ext", atomically: true, encoding: .utf8)
        for (name, subject) in [("ca", "/CN=Mock APNs Test Root"), ("clientca", "/CN=Mock Apple WWDR Test")] {
            try openssl(
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(name).key",
                "-out", "\(name).pem", "-days", "2", "-subj", subject)
        }
        try openssl(
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=localhost")
        try openssl(
            "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
            "-days", "2", "-extfile", "server.ext")
        try openssl(
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr",
            "-subj", "/UID=order.com.example.test/CN=Order Type ID: order.com.example.test")
        try openssl(
            "x509", "-req", "-in", "client.csr", "-CA", "clientca.pem", "-CAkey", "clientca.key", "-CAcreateserial",
            "-out", "client.pem", "-days", "2", "-extfile", "client.ext")
        try openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.p8")
        try openssl("pkey", "-in", "key.p8", "-pubout", "-out", "key.pub")
        func read(_ name: String) throws -> String { try String(contentsOfFile: "\(dir)/\(name)", encoding: .utf8) }
        caPEM = try read("ca.pem")
        serverCertificatePEM = try read("server.pem")
        serverKeyPEM = try read("server.key")
        clientCAPEM = try read("clientca.pem")
        clientCertificatePEM = try read("client.pem")
        clientKeyPEM = try read("client.key")
        p8PEM = try read("key.p8")
        publicKeyPEM = try read("key.pub")
    }
}
