import Foundation
import OrderModel
import OrderZip
import TestSupport
import Testing

@testable import OrderPackage

@Suite("Order package builder")
struct BuilderTests {
    static let signingTime = Date(timeIntervalSince1970: 1_750_000_000)

    static func build(
        orderJSON: [UInt8] = Fixtures.orderJSON(), files: [String: [UInt8]] = Fixtures.assets,
        signer: TestSigner? = nil, signedAt: Date = signingTime
    ) throws -> BuiltOrderPackage {
        let signer = try signer ?? TestPKI.shared.get().signer("order.com.example.test")
        return try OrderPackageBuilder(signer: signer).build(
            orderJSON: orderJSON, assets: AssetSet(files: files), signingTime: signedAt
        )
    }

    @Test func buildsFromSourceDirectorySkippingHiddenFiles() throws {
        let source = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: source) }
        var files = Fixtures.assets
        files["order.json"] = Fixtures.orderJSON()
        files[".DS_Store"] = [0, 1, 2]
        files["fr.lproj/.gitkeep"] = []
        files[".git/config"] = Array("x".utf8)
        files["manifest.json"] = Array("{}".utf8) // stale output is regenerated, not packaged twice
        try Fixtures.write(files, under: source)
        let signer = try TestPKI.shared.get().signer("order.com.example.test")
        let package = try OrderPackageBuilder(signer: signer).build(sourceDirectory: source, signingTime: Self.signingTime)

        let script = """
            import sys, io, zipfile, json, hashlib
            z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
            assert z.testzip() is None
            manifest_raw = z.read("manifest.json").decode()
            manifest = json.loads(manifest_raw)
            ok = all(hashlib.sha256(z.read(n)).hexdigest() == h for n, h in manifest.items())
            print(json.dumps({"entries": [[i.filename, i.compress_type] for i in z.infolist()],
                              "manifestKeys": list(manifest.keys()), "hashesOK": ok,
                              "escapedSlash": "\\\\/" in manifest_raw}))
            """
        let output = try ExternalTools.python(script, input: package.bytes)
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(output)) as? [String: Any])
        let entries = try #require(listing["entries"] as? [[Any]])
        let methods = Dictionary(uniqueKeysWithValues: entries.map { ($0[0] as! String, $0[1] as! Int) })
        #expect(
            Set(methods.keys) == [
                "order.json", "logo.png", "logo@2x.png", "en.lproj/order.strings", "fr.lproj/order.strings",
                "en.lproj/banner.jpg", "fr.lproj/banner.jpg", "manifest.json", "signature",
            ])
        #expect(!methods.keys.contains { $0.hasSuffix("/") })
        #expect(methods["logo.png"] == 0 && methods["logo@2x.png"] == 0 && methods["fr.lproj/banner.jpg"] == 0)
        #expect(methods["order.json"] == 8 && methods["fr.lproj/order.strings"] == 8 && methods["manifest.json"] == 8)
        #expect(
            listing["manifestKeys"] as? [String] == [
                "en.lproj/banner.jpg", "en.lproj/order.strings", "fr.lproj/banner.jpg", "fr.lproj/order.strings", "logo.png", "logo@2x.png",
                "order.json",
            ])
        #expect(listing["hashesOK"] as? Bool == true)
        #expect(listing["escapedSlash"] as? Bool == false)
        #expect(package.orderTypeIdentifier == "order.com.example.test")
    }

    @Test func opensslVerifiesTheSignatureAgainstTheRoot() throws {
        let pki = try TestPKI.shared.get()
        let package = try Self.build()
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try ZipReader.read(package.bytes)
        try Fixtures.write(Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.data) }), under: directory)
        func verify() throws {
            _ = try ExternalTools.run(
                "/usr/bin/openssl",
                [
                    "cms", "-verify", "-binary", "-inform", "DER",
                    "-in", directory.appendingPathComponent("signature").path,
                    "-content", directory.appendingPathComponent("manifest.json").path,
                    "-CAfile", pki.rootPEMPath, "-purpose", "any", "-out", "/dev/null",
                ])
        }
        try verify()
        // The same check fails once the manifest changes: it really verifies.
        try Data(Array("{}".utf8)).write(to: directory.appendingPathComponent("manifest.json"))
        #expect(throws: ExternalTools.Failure.self) { try verify() }
    }

    @Test func opensslShowsSignedAttributes() throws {
        let package = try Self.build()
        let signature = try #require(try ZipReader.read(package.bytes).first { $0.name == "signature" })
        let dump = String(
            decoding: try ExternalTools.run(
                "/usr/bin/openssl", ["cms", "-cmsout", "-print", "-inform", "DER"], input: signature.data
            ), as: UTF8.self)
        #expect(dump.contains("signingTime"))
        #expect(dump.contains("messageDigest"))
        #expect(dump.contains("sha256"))
        #expect(dump.contains("Test WWDR"))
    }

    @Test func refusesToSignForAnotherOrderType() throws {
        let signer = try TestPKI.shared.get().signer("order.com.example.other")
        #expect {
            try Self.build(signer: signer)
        } throws: { error in
            guard case OrderPackageError.orderTypeIdentifierMismatch(let order, let certificate) = error else { return false }
            return order == "order.com.example.test" && certificate == "order.com.example.other"
        }
    }

    @Test func requiresAnOrderTypeIdentifier() throws {
        #expect {
            try Self.build(orderJSON: Array(#"{"orderIdentifier":"x"}"#.utf8))
        } throws: { error in
            guard case OrderPackageError.invalidOrder(let report) = error else { return false }
            return report.errors.contains { $0.path == "orderTypeIdentifier" && $0.message.contains("missing required key") }
        }
    }

    @Test func rejectsReservedAndUnsafeAssetNames() throws {
        #expect {
            try AssetSet(files: ["signature": [1]])
        } throws: { error in
            guard case OrderPackageError.reservedAssetName("signature") = error else { return false }
            return true
        }
        #expect {
            try AssetSet(files: ["../logo.png": [1]])
        } throws: { error in
            guard case OrderPackageError.invalidAssetPath("../logo.png") = error else { return false }
            return true
        }
    }

    @Test func sameInputGivesSameBytes() throws {
        #expect(try Self.build().bytes == Self.build().bytes)
    }

    @Test func assetCacheCompressesEachContentOnce() throws {
        let cache = AssetCache()
        let strings = Array(String(repeating: "\"k\" = \"v\";\n", count: 50).utf8)
        let first = try AssetSet(files: ["en.lproj/order.strings": strings, "logo.png": Fixtures.png(size: 600)], cache: cache)
        let second = try AssetSet(files: ["de.lproj/order.strings": strings, "logo.png": Fixtures.png(size: 600)], cache: cache)
        #expect(cache.count == 2)
        #expect(first.assets[0].entry.compressedBytes == second.assets[0].entry.compressedBytes)
        #expect(second.assets.map(\.path) == ["de.lproj/order.strings", "logo.png"])
        #expect(second.assets[0].entry.compressedBytes.count < strings.count)
    }

    @Test func manifestEscapesOnlyWhatJSONRequires() {
        let json = ManifestWriter.json([("b/\"q\".png", "00"), ("a/é.png", "11")])
        #expect(String(decoding: json, as: UTF8.self) == #"{"a/é.png":"11","b/\"q\".png":"00"}"#)
    }
}
