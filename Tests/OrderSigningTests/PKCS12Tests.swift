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

    @Test("A wrong password is reported as such", arguments: ["modern.p12", "legacy.p12"])
    func wrongPassword(file: String) throws {
        let error = #expect(throws: SigningError.self) {
            try SigningIdentity(pkcs12: fixtures.bytes(file), password: "wrong")
        }
        #expect(error == .wrongPassword(source: "the PKCS#12 file"))
        #expect(error?.description.contains("Wrong password") == true)
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
