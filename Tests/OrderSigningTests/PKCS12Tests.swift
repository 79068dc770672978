import Foundation
import OrderSigning
import Testing

@Suite("Loading PKCS#12 files")
struct PKCS12Tests {
    let fixtures: Fixtures

    init() throws {
        fixtures = try Fixtures.shared.get()
    }

    @Test(
        "PKCS#12 files from openssl load with the password",
        arguments: [
            "modern.p12",  // OpenSSL 3 default: PBES2/AES-256-CBC, HMAC-SHA-256 MAC
            "legacy.p12",  // -legacy: 3DES key bag, RC2-40 certificates, HMAC-SHA-1 MAC
            "3des.p12",  // 3DES for both
            "aes128-plaincerts.p12",  // unencrypted certificates, SHA-512 MAC
            "nomac.p12",  // no integrity MAC at all
        ])
    func loads(file: String) throws {
        let identity = try SigningIdentity(pkcs12: fixtures.bytes(file), password: Fixtures.password)
        #expect(identity.orderTypeIdentifier == Fixtures.orderTypeIdentifier)
        #expect(identity.intermediates.count == 1, "the WWDR certificate in the file becomes the intermediate")
        #expect(identity.intermediates.first?.subject.description.contains("Test WWDR") == true)
        let reference = try SigningIdentity(
            certificatePEM: fixtures.text("cert.pem"), privateKeyPEM: fixtures.text("rsa.pem"))
        #expect(identity.certificate == reference.certificate)
    }

    @Test("A wrong password is reported as such", arguments: ["modern.p12", "legacy.p12", "nomac.p12"])
    func wrongPassword(file: String) throws {
        let error = #expect(throws: SigningError.self) {
            try SigningIdentity(pkcs12: fixtures.bytes(file), password: "wrong")
        }
        #expect(error == .wrongPassword(source: "the PKCS#12 file"))
        #expect(error?.description.contains("Wrong password") == true)
    }

    @Test("A BER file with indefinite lengths and a chunked OCTET STRING loads", arguments: ["modern.p12", "legacy.p12"])
    func berEncoded(file: String) throws {
        let ber = try BERRewriter.indefiniteLengthPFX(fixtures.bytes(file))
        #expect(ber != (try fixtures.bytes(file)))
        // openssl accepts the rewritten file too, so the test input is valid BER.
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("ber.p12", ber)
        try OpenSSL.require(
            ["pkcs12", "-in", "ber.p12", "-passin", "pass:\(Fixtures.password)", "-nokeys", "-out", "/dev/null"]
                + (file == "legacy.p12" ? ["-legacy"] : []),
            in: dir.url)
        let identity = try SigningIdentity(pkcs12: ber, password: Fixtures.password)
        #expect(identity.orderTypeIdentifier == Fixtures.orderTypeIdentifier)
        let error = #expect(throws: SigningError.self) { try SigningIdentity(pkcs12: ber, password: "wrong") }
        #expect(error == .wrongPassword(source: "the PKCS#12 file"))
    }

    @Test("An unsupported cipher is named with its OID and the fix")
    func unsupportedCipher() throws {
        let error = #expect(throws: SigningError.self) {
            try SigningIdentity(pkcs12: fixtures.bytes("rc4.p12"), password: Fixtures.password)
        }
        guard case .unsupportedAlgorithm(let oid, let name, _, let fix) = error else {
            Issue.record("expected unsupportedAlgorithm, got \(String(describing: error))")
            return
        }
        #expect(oid == "1.2.840.113549.1.12.1.1")
        #expect(name == "pbeWithSHAAnd128BitRC4")
        #expect(fix.contains("openssl pkcs12 -export"))
        #expect(fix.contains("without -legacy"))
    }

    @Test("An empty password works")
    func emptyPassword() throws {
        let identity = try SigningIdentity(pkcs12: fixtures.bytes("empty-password.p12"), password: "")
        #expect(identity.orderTypeIdentifier == Fixtures.orderTypeIdentifier)
        #expect(identity.intermediates.isEmpty)
    }

    @Test("Intermediates can be added from PEM")
    func extraIntermediates() throws {
        let identity = try SigningIdentity(
            pkcs12: fixtures.bytes("empty-password.p12"), password: "", intermediatesPEM: fixtures.text("wwdr.pem"))
        #expect(identity.intermediates.count == 1)
    }

    @Test("A directory with one .p12 file loads")
    func directoryWithPKCS12() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("identity.p12", fixtures.bytes("modern.p12"))
        let identity = try SigningIdentity(directory: dir.url, password: Fixtures.password)
        #expect(identity.orderTypeIdentifier == Fixtures.orderTypeIdentifier)
    }
}
