import Foundation
import OrderSigning
import Testing

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

    @Test("openssl verifies the signature against the development root")
    func verifies() throws {
        let (dir, created) = try signWithDevelopmentIdentity()
        defer { dir.remove() }
        let output = try OpenSSL.require(
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", "sig", "-content", "data",
                "-CAfile", created.files.rootCA.path, "-purpose", "any", "-out", "/dev/null",
            ],
            in: dir.url)
        #expect(output.contains("Verification successful"))
    }

    @Test("openssl rejects tampered content")
    func tampered() throws {
        let (dir, created) = try signWithDevelopmentIdentity()
        defer { dir.remove() }
        try dir.write("data", content + [0x20])
        let result = try OpenSSL.run(
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", "sig", "-content", "data",
                "-CAfile", created.files.rootCA.path, "-purpose", "any", "-out", "/dev/null",
            ],
            in: dir.url)
        #expect(result.status != 0)
        #expect(result.output.contains("digest failure") || result.output.contains("Verification failure"))
    }

    @Test("A signature does not verify against an unrelated root")
    func wrongRoot() throws {
        let (dir, _) = try signWithDevelopmentIdentity()
        defer { dir.remove() }
        let other = try DevelopmentIdentity.make(orderTypeIdentifier: "order.com.example.other")
        try dir.write("other-root.pem", other.rootCAPEM)
        let result = try OpenSSL.run(
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", "sig", "-content", "data",
                "-CAfile", "other-root.pem", "-purpose", "any", "-out", "/dev/null",
            ],
            in: dir.url)
        #expect(result.status != 0)
    }

    @Test("Signed attributes hold contentType, the given signingTime and messageDigest; both certificates are embedded")
    func signedAttributes() throws {
        let time = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01 00:00:00 UTC
        let (dir, _) = try signWithDevelopmentIdentity(signingTime: time)
        defer { dir.remove() }
        let printed = try OpenSSL.require(["cms", "-cmsout", "-print", "-inform", "DER", "-in", "sig"], in: dir.url)
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
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("sig", identity.signDetached(content))
        try dir.write("data", content)
        try OpenSSL.require(
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", "sig", "-content", "data",
                "-CAfile", fixtures.directory.file("ca.pem").path, "-purpose", "any", "-out", "/dev/null",
            ],
            in: dir.url)
    }

    @Test("An EC identity signs verifiably")
    func ecIdentity() throws {
        let fixtures = try Fixtures.shared.get()
        let identity = try SigningIdentity(
            certificatePEM: fixtures.text("ec-cert.pem"), privateKeyPEM: fixtures.text("ec.pem"))
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("sig", identity.signDetached(content))
        try dir.write("data", content)
        try OpenSSL.require(
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", "sig", "-content", "data",
                "-CAfile", fixtures.directory.file("ec-cert.pem").path, "-purpose", "any", "-out", "/dev/null",
            ],
            in: dir.url)
    }

    @Test("The raw benchmark signature is a plain RSA PKCS#1 v1.5 SHA-256 signature")
    func rawSignature() throws {
        let material = try DevelopmentIdentity.make(orderTypeIdentifier: "order.com.example.raw")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("cert.pem", material.certificatePEM)
        try dir.write("data", content)
        try dir.write("raw.sig", material.identity.rawSignatureForBenchmark(content))
        try OpenSSL.require(["x509", "-in", "cert.pem", "-pubkey", "-noout", "-out", "pub.pem"], in: dir.url)
        let output = try OpenSSL.require(
            ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "raw.sig", "data"], in: dir.url)
        #expect(output.contains("Verified OK"))
    }
}
