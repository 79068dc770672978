import Foundation
import OrderZip
import Synchronization
import Testing

@testable import OrderPackage

@Suite("Package benchmark (runs, does not judge speed)")
struct BenchmarkTests {
    @Test(arguments: PackageBenchmark.AssetProfile.allCases)
    func buildsDistinctVerifiablePackages(profile: PackageBenchmark.AssetProfile) async throws {
        let signer = try TestPKI.shared.get().signer("order.com.example.test")
        let rawSignatures = Mutex(0)
        let result = try await PackageBenchmark.run(orders: 6, assets: profile, signer: signer, concurrency: 2) {
            rawSignatures.withLock { $0 += 1 }
        }
        #expect(result.orders == 6)
        #expect(rawSignatures.withLock { $0 } == 6)
        #expect(result.ordersPerSecond > 0 && result.rawSignaturesPerSecond > 0)
        let expectedSize = profile == .heavy ? 600_000 : 2_000
        #expect(result.averagePackageBytes > expectedSize)
        #expect(result.averagePackageBytes < expectedSize + 8_000)
    }
}
