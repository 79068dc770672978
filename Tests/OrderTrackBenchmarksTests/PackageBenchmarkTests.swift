import Foundation
import OrderPackage
@_spi(Benchmarks) import OrderSigning
import OrderTrackBenchmarks
import Synchronization
import TestSupport
import Testing

@Suite("Package benchmark (runs, does not judge speed)")
struct PackageBenchmarkTests {
    @Test(arguments: PackageBenchmark.AssetProfile.allCases)
    func reportsWhatItWasAskedToBuild(profile: PackageBenchmark.AssetProfile) async throws {
        let identity = try DevelopmentIdentity.make(orderTypeIdentifier: "order.com.example.test").identity
        let rawSignatures = Mutex(0)
        let result = try await PackageBenchmark.run(orders: 6, assets: profile, signer: identity, concurrency: 2) {
            rawSignatures.withLock { $0 += 1 }
        }
        #expect(result.orders == 6)
        #expect(result.concurrency == 2)
        #expect(rawSignatures.withLock { $0 } == 6)
        // The rates are the counts over the measured time, and the ratio is theirs.
        #expect(result.ordersPerSecond == 6 / result.seconds)
        #expect(result.millisecondsPerOrder == result.seconds * 1000 / 6)
        #expect(result.ratio == result.rawSignaturesPerSecond / result.ordersPerSecond)
        let expectedSize = profile == .heavy ? 600_000 : 2_000
        #expect(result.averagePackageBytes > expectedSize)
        #expect(result.averagePackageBytes < expectedSize + 8_000)
    }

    @Test(
        "The raw signature is a plain RSA PKCS#1 v1.5 SHA-256 signature that openssl verifies",
        .enabled(if: ExternalTools.hasOpenSSL, "needs the openssl command-line tool"))
    func rawSignature() throws {
        let material = try DevelopmentIdentity.make(orderTypeIdentifier: "order.com.example.raw")
        let content = Array("the bytes a package signature covers".utf8)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("raw-signature-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try material.certificatePEM.write(to: directory.appendingPathComponent("cert.pem"), atomically: true, encoding: .utf8)
        try Data(content).write(to: directory.appendingPathComponent("data"))
        try Data(material.identity.rawSignature(content)).write(to: directory.appendingPathComponent("raw.sig"))
        try ExternalTools.requireOpenSSL(["x509", "-in", "cert.pem", "-pubkey", "-noout", "-out", "pub.pem"], in: directory)
        let output = try ExternalTools.requireOpenSSL(["dgst", "-sha256", "-verify", "pub.pem", "-signature", "raw.sig", "data"], in: directory)
        #expect(output.contains("Verified OK"))
    }
}
