import CMSVerification
import Foundation
import OrderModel
import OrderZip
import SwiftASN1
import TestSupport
import Testing
import X509

@testable import OrderPackage

/// Every signature form Wallet accepts verifies, signed by `openssl cms -sign` as other signing stacks would; each
/// mistake the doctor knows is named with its fix.
@Suite("Package signature forms and diagnoses")
struct SignatureFormTests {
    /// The built test package with its signature replaced by one `openssl cms -sign` makes with `options`.
    static func resigned(by leaf: String, _ options: [String], manifest edit: ((inout [UInt8]) -> Void)? = nil) throws -> [UInt8] {
        let pki = try TestPKI.shared.get()
        return try VerifierTests.repack(try BuilderTests.build().bytes) { files in
            // A failed signing leaves the signature out, which the tests' expectations then name.
            files["signature"] = try? pki.opensslSignature(files["manifest.json"]!, by: leaf, options)
            edit?(&files["manifest.json"]!)
        }
    }

    static let forms: [[String]] = [
        [], ["-keyid"], ["-noattr"], ["-stream", "-indef"], ["-keyid", "-noattr", "-stream", "-indef"],
    ]

    @Test(arguments: ["order.com.example.test", "ec"], forms)
    func everyFormVerifies(leaf: String, options: [String]) async throws {
        let package = try Self.resigned(by: leaf, options)
        let signature = try #require(try ZipReader.read(package).first { $0.name == "signature" }?.data)
        let parsed = try CMSSignedData(ber: signature)
        let info = try #require(parsed.signerInfos.first)
        // The forms really differ: SignedData version, signer identifier, attributes, indefinite-length BER.
        #expect(parsed.version == (options.contains("-keyid") ? 3 : 1))
        if case .subjectKeyIdentifier = info.identifier { #expect(options.contains("-keyid")) } else { #expect(!options.contains("-keyid")) }
        #expect((info.signedAttributes == nil) == options.contains("-noattr"))
        #expect((signature[1] == 0x80) == options.contains("-indef"))

        let result = try await VerifierTests.verifier().verify(package)
        #expect(result.errors == [], "\(options)")
        #expect(result.anchored)
        #expect(result.signerOrderTypeIdentifier == "order.com.example.test")
        #expect(result.warnings.contains { $0.message.contains("no signingTime attribute") } == options.contains("-noattr"))
    }

    @Test(arguments: ["order.com.example.test", "ec"], forms)
    func aTamperedManifestFailsInEveryForm(leaf: String, options: [String]) async throws {
        let package = try Self.resigned(by: leaf, options) { manifest in manifest[manifest.count - 3] ^= 0x01 }
        let result = try await VerifierTests.verifier().verify(package)
        let expected =
            options.contains("-noattr")
            ? "the signature does not verify over manifest.json (the signature value does not verify with the public key of"
            : "the signature does not verify over manifest.json (the signed messageDigest is not the digest of the content"
        #expect(VerifierTests.messages(result, at: "signature").contains { $0.hasPrefix(expected) }, "\(options)")
    }

    /// CMS's certificate set is unordered: the signer may come after its intermediate.
    @Test(arguments: [[String](), ["-stream", "-indef"]])
    func certificatesInAnyOrderVerify(options: [String]) async throws {
        var original: [Certificate] = []
        let package = try VerifierTests.repack(try Self.resigned(by: "order.com.example.test", options)) { files in
            let signature = try #require(files["signature"])
            let certificates = try CMSSignedData(ber: signature).certificates
            original = certificates
            try #require(certificates.count == 2)
            let first = try Self.der(certificates[0])
            let second = try Self.der(certificates[1])
            // The set's members are adjacent; swapping them keeps every enclosing length.
            let start = try #require(Self.range(of: first + second, in: signature))
            files["signature"] = Array(signature[..<start.lowerBound]) + second + first + Array(signature[start.upperBound...])
        }
        let signature = try #require(try ZipReader.read(package).first { $0.name == "signature" }?.data)
        #expect(try CMSSignedData(ber: signature).certificates == original.reversed())

        let result = try await VerifierTests.verifier().verify(package)
        #expect(result.errors == [], "\(options)")
        #expect(result.anchored)
    }

    /// A second, independent signing stack: Python's cryptography (PKCS7SignatureBuilder), detached and binary.
    @Test(.enabled(if: ExternalTools.pythonHasModule("cryptography.hazmat.primitives.serialization.pkcs7")))
    func aSignatureFromPythonCryptographyVerifies() async throws {
        let pki = try TestPKI.shared.get()
        let script = """
            import sys
            from cryptography import x509
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.serialization import pkcs7
            leaf = x509.load_pem_x509_certificate(open(sys.argv[1], "rb").read())
            key = serialization.load_pem_private_key(open(sys.argv[2], "rb").read(), None)
            wwdr = x509.load_pem_x509_certificate(open(sys.argv[3], "rb").read())
            signature = (pkcs7.PKCS7SignatureBuilder().set_data(sys.stdin.buffer.read())
                .add_signer(leaf, key, hashes.SHA256()).add_certificate(wwdr)
                .sign(serialization.Encoding.DER, [pkcs7.PKCS7Options.DetachedSignature, pkcs7.PKCS7Options.Binary]))
            sys.stdout.buffer.write(signature)
            """
        let package = try VerifierTests.repack(try BuilderTests.build().bytes) { files in
            files["signature"] = try ExternalTools.run(
                "/usr/bin/env",
                ["python3", "-c", script, pki.path("order.com.example.test.pem"), pki.path("order.com.example.test.key"), pki.path("wwdr.pem")],
                input: files["manifest.json"]!)
        }
        let result = try await VerifierTests.verifier().verify(package)
        #expect(result.errors == [], "\(result.problems)")
        #expect(result.anchored)
        #expect(result.signingTime != nil)
        #expect(result.signerOrderTypeIdentifier == "order.com.example.test")
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    static func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).lazy.map { $0..<($0 + needle.count) }.first { haystack[$0].elementsEqual(needle) }
    }

    @Test func aSHA1SignatureIsCalledOut() async throws {
        let result = try await VerifierTests.verifier().verify(try Self.resigned(by: "order.com.example.test", ["-md", "sha1"]))
        #expect(
            VerifierTests.messages(result, at: "signature").contains {
                $0.contains("the digest algorithm is SHA-1; sign with SHA-256")
                    && $0.hasSuffix("sign with SHA-256 and the certificate's RSA or ECDSA key")
            }, "\(result.problems)")
    }

    @Test func theWrongIntermediateIsNamedWithTheRightOne() async throws {
        let pki = try TestPKI.shared.get()
        let signer = try pki.signer("order.com.example.test", intermediates: [pki.otherIntermediate])
        let result = try await VerifierTests.verifier().verify(try BuilderTests.build(signer: signer).bytes)
        let messages = VerifierTests.messages(result, at: "signature")
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        let issuer = try #require(message.range(of: "was issued by"))
        #expect(message.hasPrefix("the embedded intermediate '") && message.contains("is not the signer's issuer"))
        #expect(message[..<issuer.lowerBound].contains("OU=G3") && message[issuer.upperBound...].contains("OU=G4"))
        #expect(message.hasSuffix("; embed that intermediate instead"))
    }

    /// Wallet builds the chain with the WWDR intermediates it knows: a package embedding the wrong one (G3 for a
    /// certificate G4 issued) is valid with a warning when the right one is known, and invalid when none is.
    @Test func theWrongIntermediateIsAWarningWhenTheRightOneIsKnown() async throws {
        let pki = try TestPKI.shared.get()
        let package = try BuilderTests.build(signer: try pki.signer("order.com.example.test", intermediates: [pki.otherIntermediate])).bytes
        let knowing = OrderPackageVerifier(trustRoots: [pki.root], knownIntermediates: [pki.otherIntermediate, pki.intermediate])
        let result = await knowing.verify(package)
        #expect(result.errors == [], "\(result.problems)")
        #expect(result.anchored && result.isValid)
        let warning = try #require(result.warnings.first { $0.path == "signature" && $0.message.contains("is not the signer's issuer") }?.message)
        #expect(warning.contains("Wallet completes the chain with its own") && warning.contains("OU=G4"), "\(warning)")
        let missing = try BuilderTests.build(signer: try pki.signer("order.com.example.test", intermediates: [])).bytes
        #expect(await knowing.verify(missing).isValid, "a missing intermediate Wallet knows is completed too")

        let unknowing = OrderPackageVerifier(trustRoots: [pki.root], knownIntermediates: [pki.otherIntermediate])
        let refused = await unknowing.verify(package)
        #expect(!refused.isValid && !refused.anchored)
        #expect(VerifierTests.messages(refused, at: "signature").contains { $0.hasSuffix("; embed that intermediate instead") })
    }

    @Test func aCertificateThatIsNotAnOrderTypeIDIsNamed() async throws {
        let package = try Self.resigned(by: "developer", [])
        let result = try await VerifierTests.verifier().verify(package)
        #expect(
            VerifierTests.messages(result, at: "signature").contains { $0.contains("is not an Order Type ID certificate") },
            "\(result.problems)")
    }

    @Test func aSigningTimeInTheFutureIsAClockError() async throws {
        let future = Date().addingTimeInterval(86_400)
        let result = try await VerifierTests.verifier().verify(try BuilderTests.build(signedAt: future).bytes)
        #expect(
            VerifierTests.messages(result, at: "signature").contains {
                $0.contains("is in the future") && $0.contains("correct the signing machine's clock")
            })
    }
}
