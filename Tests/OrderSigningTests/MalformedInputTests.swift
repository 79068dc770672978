import Foundation
import OrderSigning
import Testing

@Suite("Malformed input gives precise errors")
struct MalformedInputTests {
    let fixtures: Fixtures

    init() throws {
        fixtures = try Fixtures.shared.get()
    }

    @Test("Bad base64 is reported with its block number")
    func badBase64() throws {
        let certificate = try fixtures.text("cert.pem")
        let broken = certificate + "-----BEGIN CERTIFICATE-----\nnot*base64!\n-----END CERTIFICATE-----\n"
        let error = #expect(throws: SigningError.self) {
            try SigningIdentity(certificatePEM: broken, privateKeyPEM: fixtures.text("rsa.pem"))
        }
        #expect(error == .malformedPEM(source: "the certificate PEM", block: 2, reason: "the body of 'CERTIFICATE' is not valid base64"))
    }

    @Test("A block without END is reported")
    func missingEnd() throws {
        let key = try fixtures.text("rsa.pem").replacingOccurrences(of: "-----END PRIVATE KEY-----", with: "")
        let error = #expect(throws: SigningError.self) {
            try SigningIdentity(certificatePEM: fixtures.text("cert.pem"), privateKeyPEM: key)
        }
        guard case .malformedPEM(_, let block, let reason) = error else {
            Issue.record("expected malformedPEM, got \(String(describing: error))")
            return
        }
        #expect(block == 1)
        #expect(reason.contains("no matching END"))
    }

    @Test("Valid base64 that is not a certificate")
    func garbageCertificate() throws {
        let pem = "-----BEGIN CERTIFICATE-----\nAAECAwQF\n-----END CERTIFICATE-----\n"
        let error = #expect(throws: SigningError.self) {
            try SigningIdentity(certificatePEM: pem, privateKeyPEM: fixtures.text("rsa.pem"))
        }
        guard case .malformedCertificate = error else {
            Issue.record("expected malformedCertificate, got \(String(describing: error))")
            return
        }
    }

    @Test("No key and no certificate are named as such")
    func missingParts() throws {
        let noKey = #expect(throws: SigningError.self) {
            try SigningIdentity(certificatePEM: fixtures.text("cert.pem"), privateKeyPEM: "")
        }
        #expect(noKey == .noPrivateKey(source: "the private key PEM"))
        let noCertificate = #expect(throws: SigningError.self) {
            try SigningIdentity(certificatePEM: "just text", privateKeyPEM: fixtures.text("rsa.pem"))
        }
        #expect(noCertificate == .noCertificate(source: "the certificate PEM"))
    }

    @Test("A truncated PKCS#12 file is reported as malformed", arguments: [0.5, 0.95])
    func truncatedPKCS12(fraction: Double) throws {
        let bytes = try fixtures.bytes("modern.p12")
        let truncated = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
        let error = #expect(throws: SigningError.self) {
            try SigningIdentity(pkcs12: truncated, password: Fixtures.password)
        }
        guard case .malformedPKCS12 = error else {
            Issue.record("expected malformedPKCS12, got \(String(describing: error))")
            return
        }
    }

    @Test("Random bytes are not a PKCS#12 file")
    func notPKCS12() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(throws: SigningError.self) { try SigningIdentity(pkcs12: bytes, password: "x") }
    }

    @Test("Error messages never contain the password")
    func noPasswordInMessages() throws {
        let secret = "hunter2-very-secret"
        let error = #expect(throws: SigningError.self) {
            try SigningIdentity(
                certificatePEM: fixtures.text("cert.pem"), privateKeyPEM: fixtures.text("rsa-aes256.pem"),
                keyPassword: secret)
        }
        #expect(error.map { !$0.description.contains(secret) } == true)
    }
}
