import Foundation
import OrderModel
import OrderZip
import Testing

@testable import OrderPackage

@Suite("Order package verifier")
struct VerifierTests {
    static func verifier() throws -> OrderPackageVerifier {
        let pem = try String(contentsOfFile: try TestPKI.shared.get().rootPEMPath, encoding: .utf8)
        let verifier = try OrderPackageVerifier(trustRootsPEM: pem)
        #expect(verifier.trustRoots == [try TestPKI.shared.get().root])
        return verifier
    }

    /// Rewrites a package's entries, keeping everything else as built.
    static func repack(_ package: [UInt8], _ transform: (inout [String: [UInt8]]) throws -> Void) throws -> [UInt8] {
        let files = try ZipReader.read(package)
        var contents = Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.data) })
        try transform(&contents)
        let order =
            files.map(\.name).filter { contents[$0] != nil }
            + contents.keys.filter { name in
                !files.contains { $0.name == name }
            }.sorted()
        return try ZipWriter.archive(order.map { try ZipEntry(name: $0, data: contents[$0]!, method: .deflated) })
    }

    static func messages(_ result: PackageVerification, at path: String) -> [String] {
        result.errors.filter { $0.path == path }.map(\.message)
    }

    @Test func acceptsAGoodPackageAnchoredToTheRoot() async throws {
        let package = try BuilderTests.build()
        let result = try await Self.verifier().verify(package.bytes)
        // The test root is not Apple's: the only finding says what Wallet on a device would need.
        #expect(
            result.problems.map(\.message) == [
                "the chain is anchored to 'CN=Test Root CA main', which is not an Apple root: Wallet on a device accepts "
                    + "only Order Type ID certificates Apple issued (WWDR); for Wallet, sign with the Order Type ID "
                    + "certificate from the Apple developer account"
            ])
        #expect(result.anchored)
        #expect(result.isValid)
        #expect(result.orderTypeIdentifier == "order.com.example.test")
        #expect(result.signerOrderTypeIdentifier == "order.com.example.test")
        #expect(result.signerSubject?.contains("Order Type ID: order.com.example.test") == true)
        #expect(result.signingTime == BuilderTests.signingTime)
        #expect(result.files.count == 9)
    }

    @Test func withoutRootSaysTheChainWasNotAnchored() async throws {
        let result = await OrderPackageVerifier().verify(try BuilderTests.build().bytes)
        #expect(result.errors == [])
        #expect(!result.anchored)
        #expect(result.warnings.map(\.message).contains { $0.contains("not anchored") })
    }

    @Test(arguments: ["order.json", "logo.png", "fr.lproj/order.strings", "fr.lproj/banner.jpg"])
    func oneChangedByteInAFileFailsItsHash(path: String) async throws {
        // Change content, not structure: other rules (JSON syntax, image signatures) stay satisfied, so the hash
        // mismatch is the only error.
        let tampered = try Self.repack(try BuilderTests.build().bytes) { files in
            if path == "order.json" {
                files[path] = Array(String(decoding: files[path]!, as: UTF8.self).replacingOccurrences(of: "\"1001\"", with: "\"1002\"").utf8)
            } else {
                files[path]![files[path]!.count - 1] ^= 0x01
            }
        }
        let result = try await Self.verifier().verify(tampered)
        #expect(Self.messages(result, at: path).contains { $0.contains("does not match manifest.json") })
        #expect(result.errors.count == 1)
    }

    @Test func oneChangedByteInTheManifestBreaksTheSignature() async throws {
        let tampered = try Self.repack(try BuilderTests.build().bytes) { files in
            // Keep it valid JSON with correct hashes for all but one file: flip a byte in a hash.
            let manifest = files["manifest.json"]!
            let index = manifest.lastIndex(of: UInt8(ascii: "\""))! - 1
            files["manifest.json"]![index] = manifest[index] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        }
        let result = try await Self.verifier().verify(tampered)
        #expect(
            Self.messages(result, at: "signature").contains {
                $0.contains("does not verify over manifest.json") && $0.contains("messageDigest is not the digest")
            })
        #expect(Self.messages(result, at: "order.json").contains { $0.contains("does not match manifest.json") })
    }

    @Test func oneChangedByteInTheSignatureFails() async throws {
        let tampered = try Self.repack(try BuilderTests.build().bytes) { files in
            let count = files["signature"]!.count
            files["signature"]![count - 10] ^= 0x01 // inside the RSA signature value
        }
        let result = try await Self.verifier().verify(tampered)
        #expect(Self.messages(result, at: "signature").contains { $0.contains("does not verify over manifest.json") })
    }

    @Test func missingFilesAreReported() async throws {
        let tampered = try Self.repack(try BuilderTests.build().bytes) { files in
            files["logo.png"] = nil
            files["signature"] = nil
        }
        let result = try await Self.verifier().verify(tampered)
        #expect(Self.messages(result, at: "logo.png").contains { $0.contains("has no such file") })
        #expect(Self.messages(result, at: "signature").contains { $0.contains("signature is missing") })
    }

    @Test func extraFilesAreReported() async throws {
        let tampered = try Self.repack(try BuilderTests.build().bytes) { $0["de.lproj/order.strings"] = [1] }
        let result = try await Self.verifier().verify(tampered)
        #expect(Self.messages(result, at: "de.lproj/order.strings").contains { $0.contains("is not listed in manifest.json") })
    }

    @Test func aSignerFromAnotherHierarchyDoesNotChain() async throws {
        let stranger = try TestPKI.foreign.get().signer("order.com.example.test")
        let result = try await Self.verifier().verify(try BuilderTests.build(signer: stranger).bytes)
        #expect(Self.messages(result, at: "signature").contains { $0.contains("does not chain to the given trust root") })
        #expect(!result.anchored)
    }

    @Test func aSignerForAnotherOrderTypeIsReported() async throws {
        // A signer that does not announce its type gets past the builder; the verifier reads the certificate.
        let other = try TestPKI.shared.get().signer("order.com.example.other", claimedType: .some(nil))
        let result = try await Self.verifier().verify(try BuilderTests.build(signer: other).bytes)
        #expect(
            Self.messages(result, at: "signature").contains {
                $0.contains("for order type 'order.com.example.other'") && $0.contains("'order.com.example.test'")
            })
    }

    @Test func aMissingIntermediateIsReported() async throws {
        let signer = try TestPKI.shared.get().signer("order.com.example.test", embedIntermediate: false)
        let result = try await Self.verifier().verify(try BuilderTests.build(signer: signer).bytes)
        #expect(Self.messages(result, at: "signature").contains { $0.contains("WWDR intermediate certificate is not embedded") })
    }

    @Test func aSignerExpiredSinceSigningIsAWarning() async throws {
        // Valid when signed (2025-06-15), expired today: Wallet still accepts the package; new ones need a new certificate.
        let signer = try TestPKI.shared.get().signer("expired")
        let result = try await Self.verifier().verify(try BuilderTests.build(signer: signer).bytes)
        #expect(result.errors == [])
        #expect(
            result.warnings.map(\.message).contains(
                "the signer certificate was valid when signed on 2025-06-15; the certificate expired on 2025-12-31; "
                    + "renew it before signing new packages"))
    }

    @Test func aSignerNotYetValidWhenSignedIsAnError() async throws {
        let before = Date(timeIntervalSince1970: 1_700_000_000) // 2023-11-14, before the test certificates
        let result = try await Self.verifier().verify(try BuilderTests.build(signedAt: before).bytes)
        #expect(
            Self.messages(result, at: "signature").contains {
                $0.hasPrefix("the signer certificate was not valid when signed on 2023-11-14 (valid from 2025-01-01 to ")
            })
    }

    @Test func sha1DigestsAreCalledOut() async throws {
        let tampered = try Self.repack(try BuilderTests.build().bytes) { files in
            let text = String(decoding: files["manifest.json"]!, as: UTF8.self)
            let sha1 = String(repeating: "ab", count: 20)
            let replaced = text.replacingOccurrences(
                of: #""order.json":"[0-9a-f]{64}""#, with: "\"order.json\":\"\(sha1)\"", options: .regularExpression
            )
            files["manifest.json"] = Array(replaced.utf8)
        }
        let result = try await Self.verifier().verify(tampered)
        #expect(Self.messages(result, at: "order.json").contains { $0.contains("SHA-1") && $0.contains("orders need SHA-256") })
    }

    @Test func zipSafetyProblemsComeThroughAndTheRestIsStillChecked() async throws {
        let built = try BuilderTests.build().bytes
        var files = try ZipReader.read(built).map { try ZipEntry(name: $0.name, data: $0.data, method: .stored) }
        var evil = try ZipWriter.archive([ZipEntry(name: "xx/evil.txt", data: [1], method: .stored)])
        // Patch "xx/" to "../" in both headers: the writer itself refuses such names.
        for index in evil.indices.dropLast(2) where evil[index] == 0x78 && evil[index + 1] == 0x78 && evil[index + 2] == 0x2F {
            evil[index] = 0x2E
            evil[index + 1] = 0x2E
        }
        let evilEntry = try #require(ZipReader.inspect(evil).problems.first)
        #expect(evilEntry == .parentDirectoryComponent(entry: "../evil.txt"))
        files.append(try ZipEntry(name: "yy/evil.txt", data: [1], method: .stored))
        var archive = try ZipWriter.archive(files)
        for index in archive.indices.dropLast(2) where archive[index] == 0x79 && archive[index + 1] == 0x79 && archive[index + 2] == 0x2F {
            archive[index] = 0x2E
            archive[index + 1] = 0x2E
        }
        let result = try await Self.verifier().verify(archive)
        #expect(Self.messages(result, at: "../evil.txt").contains { $0.contains("'..' components are not allowed") })
        // Everything else still verified: only the traversal entry is wrong.
        #expect(result.errors.count == 1)
    }

    @Test func garbageIsReportedNotCrashedOn() async throws {
        let result = try await Self.verifier().verify(Array("definitely not a zip".utf8))
        #expect(result.errors.map(\.path).sorted() == ["", "manifest.json", "order.json", "signature"])
    }

    @Test func everyProblemIsReportedAtOnce() async throws {
        let tampered = try Self.repack(try BuilderTests.build().bytes) { files in
            files["logo.png"]![3] ^= 1
            files["fr.lproj/order.strings"] = nil
            files["extra.txt"] = [1]
        }
        let result = try await Self.verifier().verify(tampered)
        // The broken PNG signature also breaks the schema rule for merchant.logo: both are reported.
        #expect(Set(result.errors.map(\.path)) == ["logo.png", "fr.lproj/order.strings", "extra.txt", "merchant.logo"])
    }
}
