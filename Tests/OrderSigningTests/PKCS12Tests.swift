import Foundation
import OrderSigning
import TestSupport
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
            "modern.p12", // OpenSSL 3 default: PBES2/AES-256-CBC, HMAC-SHA-256 MAC
            "legacy.p12", // -legacy: 3DES key bag, RC2-40 certificates, HMAC-SHA-1 MAC
            "3des.p12", // 3DES for both
            "aes128-plaincerts.p12", // unencrypted certificates, SHA-512 MAC
            "nomac.p12", // no integrity MAC at all
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
        try ExternalTools.requireOpenSSL(
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

    /// Audit M3: a 10,000,000-iteration file stalled loading for seconds. The cap is what exporters use (600,000);
    /// one more is refused before any derivation runs, with the count and the cap in the message.
    @Test("Key derivations above 600,000 iterations are refused, in the MAC, the PKCS#12 bags and PKCS#8")
    func m3_iterationCountsAboveTheCapAreRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let pass = "pass:\(Fixtures.password)"
        let export = ["pkcs12", "-export", "-inkey", "rsa.pem", "-in", "cert.pem", "-passout", pass, "-iter", "600001"]
        // -iter sets the MAC's count and the bags' count; without a MAC the key bag is refused instead.
        try ExternalTools.requireOpenSSL(export + ["-out", dir.file("mac.p12").path], in: fixtures.directory.url)
        try ExternalTools.requireOpenSSL(export + ["-nomac", "-out", dir.file("bags.p12").path], in: fixtures.directory.url)
        for count in ["600001", "600000"] {
            try ExternalTools.requireOpenSSL(
                [
                    "pkcs8", "-topk8", "-in", "rsa.pem", "-v2", "aes-256-cbc", "-iter", count, "-passout", pass,
                    "-out", dir.file("rsa-\(count).pem").path,
                ],
                in: fixtures.directory.url)
        }

        let mac = #expect(throws: SigningError.self) { try SigningIdentity(pkcs12: dir.bytes("mac.p12"), password: Fixtures.password) }
        #expect(mac == .excessiveIterations(context: "the MAC of the PKCS#12 file", iterations: 600_001, maximum: 600_000))
        #expect(mac?.description.contains("asks for 600001 iterations, more than the 600000 this server accepts") == true)
        let bags = #expect(throws: SigningError.self) { try SigningIdentity(pkcs12: dir.bytes("bags.p12"), password: Fixtures.password) }
        #expect(bags == .excessiveIterations(context: "the private key encryption of the PKCS#12 file", iterations: 600_001, maximum: 600_000))
        let pkcs8 = #expect(throws: SigningError.self) {
            try SigningIdentity(certificatePEM: fixtures.text("cert.pem"), privateKeyPEM: dir.text("rsa-600001.pem"), keyPassword: Fixtures.password)
        }
        guard case .excessiveIterations(_, 600_001, 600_000) = pkcs8 else {
            Issue.record("expected excessiveIterations, got \(String(describing: pkcs8))")
            return
        }
        let atTheCap = try SigningIdentity(
            certificatePEM: fixtures.text("cert.pem"), privateKeyPEM: dir.text("rsa-600000.pem"), keyPassword: Fixtures.password)
        #expect(atTheCap.orderTypeIdentifier == Fixtures.orderTypeIdentifier)
    }
}
