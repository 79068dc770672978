import CMSVerification
import Foundation
import OrderModel
import OrderZip
import Testing

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
