import Foundation
import OrderSigning
import Testing

@Suite("Loading PEM keys in every format")
struct KeyFormatTests {
    let fixtures: Fixtures

    init() throws {
        fixtures = try Fixtures.shared.get()
    }

    func load(_ key: String, certificate: String = "cert.pem", password: String? = nil) throws -> SigningIdentity {
        try SigningIdentity(
            certificatePEM: fixtures.text(certificate), privateKeyPEM: fixtures.text(key), keyPassword: password,
            intermediatesPEM: fixtures.text("wwdr.pem"))
    }

    @Test("Unencrypted RSA keys load", arguments: ["rsa.pem", "rsa-pkcs1.pem"])
    func unencryptedRSA(file: String) throws {
        let identity = try load(file)
        #expect(identity.orderTypeIdentifier == Fixtures.orderTypeIdentifier)
        #expect(identity.intermediates.count == 1)
        #expect(identity.intermediates.first?.subject.description.contains("Test WWDR") == true)
    }

    @Test(
        "Encrypted keys load with the password",
        arguments: [
            "rsa-aes256.pem", "rsa-aes128-sha1.pem", "rsa-aes192-sha512.pem", "rsa-des3.pem",
            "rsa-legacy-aes.pem", "rsa-legacy-des3.pem",
        ])
    func encryptedRSA(file: String) throws {
        let identity = try load(file, password: Fixtures.password)
        #expect(identity.orderTypeIdentifier == Fixtures.orderTypeIdentifier)
    }

    @Test(
        "Encrypted keys reject a wrong password",
        arguments: ["rsa-aes256.pem", "rsa-aes128-sha1.pem", "rsa-des3.pem", "rsa-legacy-aes.pem", "rsa-legacy-des3.pem"])
    func wrongPassword(file: String) throws {
        let error = #expect(throws: SigningError.self) { try load(file, password: "not the password") }
        guard case .wrongPassword = error else {
            Issue.record("expected wrongPassword, got \(String(describing: error))")
            return
        }
    }

    @Test("An encrypted key without a password asks for one", arguments: ["rsa-aes256.pem", "rsa-legacy-aes.pem"])
    func missingPassword(file: String) throws {
        let error = #expect(throws: SigningError.self) { try load(file) }
        guard case .passwordRequired = error else {
            Issue.record("expected passwordRequired, got \(String(describing: error))")
            return
        }
    }

    @Test("scrypt-encrypted keys name the algorithm and the fix")
    func scryptUnsupported() throws {
        let error = #expect(throws: SigningError.self) { try load("rsa-scrypt.pem", password: Fixtures.password) }
        guard case .unsupportedAlgorithm(let oid, let name, _, let fix) = error else {
            Issue.record("expected unsupportedAlgorithm, got \(String(describing: error))")
            return
        }
        #expect(oid == "1.3.6.1.4.1.11591.4.11")
        #expect(name == "scrypt")
        #expect(fix.contains("openssl pkcs8 -topk8 -v2 aes-256-cbc"))
    }

    @Test("EC keys load from SEC1 (with EC PARAMETERS) and PKCS#8", arguments: ["ec.pem", "ec-pkcs8.pem"])
    func ecKeys(file: String) throws {
        let identity = try load(file, certificate: "ec-cert.pem")
        // No UID attribute: the identifier comes from the "Order Type ID: " common name.
        #expect(identity.orderTypeIdentifier == "order.com.example.ec")
        #expect(identity.intermediates.map(\.subject.description).contains { $0.contains("Test WWDR") })
    }

    @Test("A P-384 key loads and a certificate without an identifier yields nil")
    func p384() throws {
        let identity = try load("ec384.pem", certificate: "ec384-cert.pem")
        #expect(identity.orderTypeIdentifier == nil)
    }

    @Test("A key that does not belong to the certificate is refused")
    func mismatch() throws {
        let error = #expect(throws: SigningError.self) { try load("other.pem") }
        guard case .keyCertificateMismatch(let subjects) = error else {
            Issue.record("expected keyCertificateMismatch, got \(String(describing: error))")
            return
        }
        #expect(subjects.contains { $0.contains(Fixtures.orderTypeIdentifier) })
    }

    @Test("Certificate chain and key in one PEM file")
    func combinedFile() throws {
        let combined = try fixtures.text("rsa.pem") + fixtures.text("cert.pem")
        let identity = try SigningIdentity(
            certificatePEM: fixtures.text("cert.pem") + fixtures.text("wwdr.pem") + fixtures.text("ca.pem"),
            privateKeyPEM: combined)
        #expect(identity.intermediates.count == 1, "the self-signed root is not embedded, the WWDR is")
    }
}
