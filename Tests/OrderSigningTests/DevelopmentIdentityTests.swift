import Foundation
import OrderSigning
import TestSupport
import Testing
import X509

@Suite("Development identities")
struct DevelopmentIdentityTests {
    @Test("create writes the files, with the key readable only by its owner")
    func files() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let created = try DevelopmentIdentity.create(
            orderTypeIdentifier: "order.com.example.files", teamIdentifier: "ABCDE12345", in: dir.url)
        for url in [
            created.files.rootCA, created.files.wwdr, created.files.certificate, created.files.privateKey,
            created.files.readme,
        ] {
            #expect(FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent) exists")
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: created.files.privateKey.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try dir.text("key.pem").hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let readme = try dir.text("README.txt")
        #expect(readme.contains("NOT TRUSTED BY APPLE WALLET"))
        #expect(readme.contains("order.com.example.files"))
    }

    @Test("Every subject says the identity is for development and untrusted; the leaf looks like Apple's")
    func subjects() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try DevelopmentIdentity.create(
            orderTypeIdentifier: "order.com.example.subjects", teamIdentifier: "ABCDE12345", in: dir.url)
        for file in ["root-ca.pem", "wwdr.pem", "certificate.pem"] {
            let subject = try ExternalTools.requireOpenSSL(["x509", "-in", file, "-noout", "-subject", "-nameopt", "RFC2253"], in: dir.url)
            #expect(subject.contains("NOT TRUSTED BY WALLET"), "\(file): \(subject)")
            #expect(subject.contains("Development"), "\(file): \(subject)")
        }
        let leaf = try ExternalTools.requireOpenSSL(["x509", "-in", "certificate.pem", "-noout", "-text"], in: dir.url)
        #expect(leaf.contains("UID = order.com.example.subjects"))
        #expect(leaf.contains("CN = Order Type ID: order.com.example.subjects"))
        #expect(leaf.contains("OU = ABCDE12345"))
        #expect(leaf.contains("C = US"))
        #expect(leaf.contains("Digital Signature"))
        #expect(leaf.contains("CA:FALSE"))
        #expect(leaf.contains("Public-Key: (2048 bit)"))
        let chain = try ExternalTools.openssl(
            ["verify", "-CAfile", "root-ca.pem", "-untrusted", "wwdr.pem", "certificate.pem"], in: dir.url)
        #expect(chain.status == 0, "openssl builds the chain: \(chain.output)")
    }

    @Test("The written identity loads back from its directory")
    func reload() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let created = try DevelopmentIdentity.create(orderTypeIdentifier: "order.com.example.reload", in: dir.url)
        let loaded = try SigningIdentity(directory: dir.url)
        #expect(loaded.certificate == created.identity.certificate)
        #expect(loaded.intermediates == created.identity.intermediates)
        #expect(loaded.orderTypeIdentifier == "order.com.example.reload")
        #expect(SigningIdentity.orderTypeIdentifier(of: loaded.certificate) == "order.com.example.reload")
    }

    @Test("create refuses to overwrite an existing identity")
    func noOverwrite() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try DevelopmentIdentity.create(orderTypeIdentifier: "order.com.example.first", in: dir.url)
        let before = try dir.text("key.pem")
        let error = #expect(throws: SigningError.self) {
            try DevelopmentIdentity.create(orderTypeIdentifier: "order.com.example.second", in: dir.url)
        }
        guard case .fileAccess(_, let reason) = error else {
            Issue.record("expected fileAccess, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("already exists"))
        #expect(try dir.text("key.pem") == before)
    }

    @Test("An empty directory is reported with what it should contain")
    func emptyDirectory() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let error = #expect(throws: SigningError.self) { try SigningIdentity(directory: dir.url) }
        #expect(error?.description.contains("certificate.pem and key.pem") == true)
    }

    @Test("expiresWithin reflects the validity period")
    func expiry() throws {
        let now = Date()
        let material = try DevelopmentIdentity.make(
            orderTypeIdentifier: "order.com.example.expiry", validity: 10 * 86_400, now: now)
        #expect(material.identity.expiresWithin(30 * 86_400, of: now))
        #expect(!material.identity.expiresWithin(5 * 86_400, of: now))
        #expect(abs(material.identity.notValidAfter.timeIntervalSince(now.addingTimeInterval(10 * 86_400))) < 2)
    }

    @Test("The identifier falls back to the CN and is nil without either")
    func identifierExtraction() throws {
        let fixtures = try Fixtures.shared.get()
        let uid = try Certificate(pemEncoded: fixtures.text("cert.pem"))
        #expect(SigningIdentity.orderTypeIdentifier(of: uid) == Fixtures.orderTypeIdentifier)
        let cnOnly = try Certificate(pemEncoded: fixtures.text("ec-cert.pem"))
        #expect(SigningIdentity.orderTypeIdentifier(of: cnOnly) == "order.com.example.ec")
        let neither = try Certificate(pemEncoded: fixtures.text("wwdr.pem"))
        #expect(SigningIdentity.orderTypeIdentifier(of: neither) == nil)
    }
}
