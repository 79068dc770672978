import Foundation
import OrderModel
import Testing

/// `ordertrack lookup-key create` and `ordertrack bench lookup`, run as a process.
extension CLITests {
    @Test func createsALookupKeyShownOnce() async throws {
        let created = try await run(["merchant", "create", "--name", "Lookup Shop", "--data-dir", "data"])
        let merchant = try #require(created.output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let key = try await run([
            "lookup-key", "create", "--merchant", merchant, "--bundle-id", "com.example.support", "--p8", "key.p8", "--data-dir", "data",
        ])
        #expect(key.status == 0, "\(key.errors)")
        let json = try JSONValue.parse(Array(key.output.utf8))
        #expect(json["bundleId"] == "com.example.support")
        #expect(json["keyId"]?.stringValue?.count == 10)
        let p8 = try String(contentsOf: directory.appendingPathComponent("key.p8"), encoding: .utf8)
        #expect(p8.hasPrefix("-----BEGIN PRIVATE KEY-----") && json["privateKey"]?.stringValue == p8)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("key.p8").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try await run(["lookup-key", "create", "--merchant", "no-such-merchant", "--data-dir", "data"]).status == 1)
        #expect(try await run(["lookup-key", "create", "--merchant", merchant, "--bundle-id", "bad id", "--data-dir", "data"]).status == 1)
    }

    @Test func benchLookupRunsAndReportsTheRatio() async throws {
        let bench = try await run(["bench", "lookup", "--connections", "2", "--seconds", "0.5"])
        #expect(bench.status == 0, "\(bench.errors)")
        // Ten alternating rounds: the overall ratio, then the lowest and highest round's.
        let ratio = try #require(bench.output.split(separator: "\n").first { $0.contains("ratio lookup / healthz") }, "\(bench.output)")
        #expect(ratio.wholeMatch(of: /\s*ratio lookup \/ healthz\s+\d+\.\d\d \(rounds \d+\.\d\d to \d+\.\d\d\)/) != nil, "\(ratio)")
        #expect(bench.output.contains(/CPU per request\s+\d+ µs against \d+ µs: \d+\.\d\dx \(this process/), "\(bench.output)")
    }
}
