import Foundation
import NIOSSL
import OrderSigning
import TestSupport
import Testing

/// Why OrderSigning reads PKCS#12 itself: the files ``PKCS12Tests`` loads, tried through swift-nio-ssl's
/// `NIOSSLPKCS12Bundle` (BoringSSL's `PKCS12_parse`). NIOSSL loads every kind but files without an integrity MAC, and it
/// ends the process on a file with no private key matching a certificate, which merchants can upload. If this suite
/// fails, NIOSSL changed: reconsider our reader (docs/architecture.md, "Hand-written on purpose").
@Suite("NIOSSLPKCS12Bundle on our PKCS#12 fixtures (why our own reader stays)")
struct NIOSSLPKCS12Tests {
    let fixtures: Fixtures

    init() throws {
        fixtures = try Fixtures.shared.get()
    }

    @Test(
        "NIOSSL loads the kinds with a MAC, like our reader",
        arguments: ["modern.p12", "legacy.p12", "3des.p12", "aes128-plaincerts.p12"])
    func loadsFilesWithAMAC(file: String) throws {
        let bundle = try NIOSSLPKCS12Bundle(buffer: fixtures.bytes(file), passphrase: Array(Fixtures.password.utf8))
        #expect(bundle.certificateChain.count == 2)
        #expect(try SigningIdentity(pkcs12: fixtures.bytes(file), password: Fixtures.password).intermediates.count == 1)
    }

    @Test("A file without an integrity MAC loads with our reader but not with NIOSSL")
    func missingMAC() throws {
        #expect(try SigningIdentity(pkcs12: fixtures.bytes("nomac.p12"), password: Fixtures.password).intermediates.count == 1)
        let error = #expect(throws: NIOSSL.BoringSSLError.self) {
            try NIOSSLPKCS12Bundle(buffer: fixtures.bytes("nomac.p12"), passphrase: Array(Fixtures.password.utf8))
        }
        #expect("\(String(describing: error))".contains("MISSING_MAC"))
    }

    @Test("A PKCS#12 file without a private key: our reader throws, NIOSSL ends the process (fatalError)")
    func noPrivateKey() async throws {
        #expect(throws: SigningError.self) {
            try SigningIdentity(pkcs12: Self.certificateOnlyFile(in: fixtures), password: Fixtures.password)
        }
        // Exit code 0 if the file cannot be made, so only NIOSSL's trap (SIGILL) passes.
        await #expect(processExitsWith: .signal(SIGILL)) {
            guard let fixtures = try? Fixtures.shared.get(), let bytes = try? Self.certificateOnlyFile(in: fixtures) else { exit(0) }
            _ = try? NIOSSLPKCS12Bundle(buffer: bytes, passphrase: Array(Fixtures.password.utf8))
            exit(0)
        }
    }

    /// The fixture certificate alone in a password-protected PKCS#12 file.
    static func certificateOnlyFile(in fixtures: Fixtures) throws -> [UInt8] {
        try ExternalTools.requireOpenSSL(
            ["pkcs12", "-export", "-nokeys", "-in", "cert.pem", "-passout", "pass:\(Fixtures.password)", "-out", "certificate-only.p12"],
            in: fixtures.directory.url)
        return try fixtures.bytes("certificate-only.p12")
    }
}
