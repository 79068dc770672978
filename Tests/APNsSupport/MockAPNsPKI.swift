import Foundation
import TestSupport

/// Real certificates and keys made by the openssl CLI for one test run: a CA, the mock's server certificate
/// for 127.0.0.1/localhost, a client CA with a client certificate, and a P-256 .p8 key with its public key.
package struct MockAPNsPKI: Sendable {
    package let directory: URL
    package let caPEM: String
    package let serverCertificatePEM: String
    package let serverKeyPEM: String
    package let clientCAPEM: String
    package let clientCertificatePEM: String
    package let clientKeyPEM: String
    package let p8PEM: String
    package let publicKeyPEM: String

    package static let shared: MockAPNsPKI = {
        do { return try MockAPNsPKI() } catch { preconditionFailure("cannot make test certificates with openssl: \(error)") }
    }()

    init() throws {
        let files = try OpenSSLCertificates("apns-pki")
        directory = files.directory
        try files.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n", to: "server.ext")
        try files.write("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n", to: "client.ext")
        try files.selfSigned("ca", subject: "/CN=Mock APNs Test Root", key: .ec)
        try files.selfSigned("clientca", subject: "/CN=Mock Apple WWDR Test", key: .ec)
        try files.issue("server", subject: "/CN=localhost", key: .ec, by: "ca", extensions: .file("server.ext"))
        try files.issue(
            "client", subject: "/UID=order.com.example.test/CN=Order Type ID: order.com.example.test", key: .rsa, by: "clientca",
            extensions: .file("client.ext"))
        try files.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.p8"])
        try files.openssl(["pkey", "-in", "key.p8", "-pubout", "-out", "key.pub"])
        caPEM = try files.text("ca.pem")
        serverCertificatePEM = try files.text("server.pem")
        serverKeyPEM = try files.text("server.key")
        clientCAPEM = try files.text("clientca.pem")
        clientCertificatePEM = try files.text("client.pem")
        clientKeyPEM = try files.text("client.key")
        p8PEM = try files.text("key.p8")
        publicKeyPEM = try files.text("key.pub")
    }
}
