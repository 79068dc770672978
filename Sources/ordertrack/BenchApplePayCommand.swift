import ApplePay
import ArgumentParser
import Foundation
import OrderModel
import OrderTrackBenchmarks

/// `ordertrack bench apple-pay`: EC_v1 verify+decrypt throughput on one core; `scripts/bench-apple-pay` runs it and
/// PyPI `applepay` on the same tokens.
struct BenchApplePayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple-pay",
        abstract: "Verify (CMS signature, chain, signing time) and decrypt N generated EC_v1 Apple Pay tokens on one core.")

    @Option(help: "Number of distinct tokens")
    var tokens = 2000

    @Option(help: "Also write the tokens (token-N.json), the merchant certificate and key and the test root into this directory")
    var write: String?

    func validate() throws {
        guard tokens > 0 else { throw ValidationError("--tokens must be positive") }
    }

    func run() async throws {
        let fixture = try ApplePayBenchmark.Fixture()
        let payloads = (0..<tokens).map { ApplePayBenchmark.samplePayload(amount: 100 + $0) }
        let jsons = try payloads.map { try fixture.token(payload: $0).serialized() }
        if let write { try save(fixture, jsons, to: URL(fileURLWithPath: write)) }
        let decryptor = ApplePayDecryptor(identities: [fixture.identity], additionalTrustRoots: [fixture.root])
        // One warm-up token, so the first chain validation and lazy initialisation are not timed.
        _ = try await ApplePayBenchmark.run(tokens: Array(jsons.prefix(1)), decryptor: decryptor)
        let result = try await ApplePayBenchmark.run(tokens: jsons, decryptor: decryptor)
        print(
            """
            tokens:              \(result.tokens) (EC_v1, distinct ephemeral keys and signatures, one core)
            verify+decrypt/s:    \(String(format: "%.0f", result.tokensPerSecond)) (\(String(format: "%.1f", result.seconds * 1e6 / Double(result.tokens))) µs each)
            """)
    }

    private func save(_ fixture: ApplePayBenchmark.Fixture, _ jsons: [[UInt8]], to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (index, json) in jsons.enumerated() {
            try Data(json).write(to: directory.appendingPathComponent("token-\(index).json"))
        }
        try Data(try fixture.merchantCertificate.serializeAsPEM().pemString.utf8).write(to: directory.appendingPathComponent("merchant.pem"))
        try Data(fixture.merchantKey.pemRepresentation.utf8).write(to: directory.appendingPathComponent("merchant-key.pem"))
        try Data(try fixture.root.serializeAsPEM().pemString.utf8).write(to: directory.appendingPathComponent("root.pem"))
    }
}
