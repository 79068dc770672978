import Foundation
import TestSupport
import Testing
@_spi(CMS) import X509

@testable import OrderSigning

@Suite("Detached CMS signatures verified by openssl")
struct SigningTests {
    let content = Array(#"{"files":{"order.json":"0123"}}"#.utf8)

    /// Writes a development identity, signs `content` and returns the directory with `sig` and `data`.
    func signWithDevelopmentIdentity(signingTime: Date = Date()) throws -> (TemporaryDirectory, DevelopmentIdentity.Created) {
        let dir = try TemporaryDirectory()
        let created = try DevelopmentIdentity.create(
            orderTypeIdentifier: "order.com.example.dev", in: dir.url.appendingPathComponent("identity"))
        let signature = try created.identity.signDetached(content, signingTime: signingTime)
        try dir.write("sig", signature)
        try dir.write("data", content)
        return (dir, created)
    }

    /// `openssl cms -verify` of `sig` over `data` in `dir`, whatever its verdict.
    func cmsVerification(in dir: TemporaryDirectory, caFile: String) throws -> ExternalTools.Outcome {
        try ExternalTools.openssl(cmsVerifyArguments(caFile: caFile), in: dir.url)
    }

    /// `openssl cms -verify` of `sig` over `data` in `dir`; throws unless the signature verifies.
    @discardableResult
    func requireCMSVerification(in dir: TemporaryDirectory, caFile: String) throws -> String {
        try ExternalTools.requireOpenSSL(cmsVerifyArguments(caFile: caFile), in: dir.url)
    }

    private func cmsVerifyArguments(caFile: String) -> [String] {
        [
            "cms", "-verify", "-binary", "-inform", "DER", "-in", "sig", "-content", "data", "-CAfile", caFile, "-purpose", "any", "-out",
            "/dev/null",
        ]
    }

    /// Signs `content` with `identity` and requires openssl to verify the signature against `caFile`.
    func expectOpenSSLVerifiesSignature(of identity: SigningIdentity, caFile: URL) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("sig", identity.signDetached(content))
        try dir.write("data", content)
        try requireCMSVerification(in: dir, caFile: caFile.path)
    }

    @Test("openssl verifies the signature against the development root")
    func verifies() throws {
        let (dir, created) = try signWithDevelopmentIdentity()
        defer { dir.remove() }
        let output = try requireCMSVerification(in: dir, caFile: created.files.rootCA.path)
        #expect(output.contains("Verification successful"))
    }

    @Test("openssl rejects tampered content")
    func tampered() throws {
        let (dir, created) = try signWithDevelopmentIdentity()
        defer { dir.remove() }
        try dir.write("data", content + [0x20])
        let result = try cmsVerification(in: dir, caFile: created.files.rootCA.path)
        #expect(result.status != 0)
        #expect(result.output.contains("digest failure") || result.output.contains("Verification failure"))
    }

    @Test("A signature does not verify against an unrelated root")
    func wrongRoot() throws {
        let (dir, _) = try signWithDevelopmentIdentity()
        defer { dir.remove() }
        let other = try DevelopmentIdentity.make(orderTypeIdentifier: "order.com.example.other")
        try dir.write("other-root.pem", other.rootCAPEM)
        let result = try cmsVerification(in: dir, caFile: "other-root.pem")
        #expect(result.status != 0)
    }

    @Test("Signed attributes hold contentType, the given signingTime and messageDigest; both certificates are embedded")
    func signedAttributes() throws {
        let time = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01 00:00:00 UTC
        let (dir, _) = try signWithDevelopmentIdentity(signingTime: time)
        defer { dir.remove() }
        let printed = try ExternalTools.requireOpenSSL(["cms", "-cmsout", "-print", "-inform", "DER", "-in", "sig"], in: dir.url)
        #expect(printed.contains("signingTime"))
        #expect(printed.contains("Jan  1 00:00:00 2026 GMT"))
        #expect(printed.contains("contentType"))
        #expect(printed.contains("messageDigest"))
        #expect(printed.contains("sha256"))
        #expect(printed.contains("eContent: <ABSENT>"), "the signature is detached")
        #expect(printed.contains("Order Type ID: order.com.example.dev"))
        #expect(printed.contains("OrderTrack Development WWDR Intermediate"))
    }

    @Test("A PKCS#12 identity signs verifiably with its openssl-made chain")
    func pkcs12Identity() throws {
        let fixtures = try Fixtures.shared.get()
        let identity = try SigningIdentity(pkcs12: fixtures.bytes("legacy.p12"), password: Fixtures.password)
        try expectOpenSSLVerifiesSignature(of: identity, caFile: fixtures.directory.file("ca.pem"))
    }

    @Test("An EC identity signs verifiably")
    func ecIdentity() throws {
        let fixtures = try Fixtures.shared.get()
        let identity = try SigningIdentity(
            certificatePEM: fixtures.text("ec-cert.pem"), privateKeyPEM: fixtures.text("ec.pem"))
        try expectOpenSSLVerifiesSignature(of: identity, caFile: fixtures.directory.file("ec-cert.pem"))
    }
}

@Suite("RSA signatures from a template")
struct RSASignatureTemplateTests {
    /// Times around the rounding to a second and the ends of UTCTime's range.
    static let times: [Date] = [
        Date(timeIntervalSince1970: 1_767_225_600), Date(timeIntervalSince1970: 1_767_225_600.5),
        Date(timeIntervalSince1970: 1_767_225_600.499), Date(timeIntervalSince1970: 2_524_607_999.4), // 2049-12-31T23:59:59
        Date(timeIntervalSince1970: -631_152_000), // 1950-01-01
        Date(timeIntervalSince1970: 981_173_106), // the template's own probe time
    ]

    func identities() throws -> [SigningIdentity] {
        let fixtures = try Fixtures.shared.get()
        return [
            try DevelopmentIdentity.make(orderTypeIdentifier: "order.com.example.template").identity,
            try SigningIdentity(pkcs12: fixtures.bytes("legacy.p12"), password: Fixtures.password),
        ]
    }

    @Test("An RSA identity's signatures are byte for byte what swift-certificates' CMS.sign writes")
    func sameBytesAsTheLibrary() throws {
        var generator = SystemRandomNumberGenerator()
        for identity in try identities() {
            for time in Self.times {
                for length in [0, 1, 200, 5_000] {
                    let content = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    let expected = try CMS.sign(
                        content, signatureAlgorithm: .sha256WithRSAEncryption, additionalIntermediateCertificates: identity.intermediates,
                        certificate: identity.certificate, privateKey: identity.privateKey, signingTime: time, detached: true)
                    #expect(try identity.signDetached(content, signingTime: time) == expected, "\(time), \(length) bytes")
                }
            }
        }
    }

    @Test("Beyond UTCTime's range the signature fails as CMS.sign does")
    func outOfRange() throws {
        let identity = try #require(try identities().first)
        #expect(throws: SigningError.self) {
            try identity.signDetached([1, 2, 3], signingTime: Date(timeIntervalSince1970: 2_524_608_000)) // 2050
        }
    }

    @Test("The system's OpenSSL signs where it is installed, and BoringSSL gives the same signatures")
    func bothLibraries() throws {
        let identity = try #require(try identities().first)
        #expect(identity.signatureLibrary == (SystemOpenSSL.shared == nil ? "BoringSSL" : "OpenSSL"))
        guard case .rsa(let key) = identity.key else { throw TemplateTestFailure.notRSA }
        let withOpenSSL = try #require(
            RSASignatureTemplate(key: key, certificate: identity.certificate, intermediates: identity.intermediates))
        let withBoringSSL = try #require(
            RSASignatureTemplate(key: key, certificate: identity.certificate, intermediates: identity.intermediates, openSSL: nil))
        #expect(withBoringSSL.library == "BoringSSL")
        for time in Self.times {
            let content = Array("order \(time)".utf8)
            #expect(try withOpenSSL.sign(content, signingTime: time) == withBoringSSL.sign(content, signingTime: time))
        }
    }

    enum TemplateTestFailure: Error { case notRSA }
}
