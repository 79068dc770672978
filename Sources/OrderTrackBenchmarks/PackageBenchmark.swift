import Foundation
import OrderPackage
import OrderSigning
import WireFormats

/// Throughput of package building with one signer, for `ordertrack bench package`.
public enum PackageBenchmark {
    /// Which static assets every benchmark order carries.
    public enum AssetProfile: String, Sendable, CaseIterable {
        /// One ~600-byte PNG logo.
        case light
        /// 600 KB of incompressible PNG-named data in three images.
        case heavy
    }

    public struct Result: Sendable {
        public var orders: Int
        public var concurrency: Int
        public var seconds: Double
        public var ordersPerSecond: Double
        public var millisecondsPerOrder: Double
        public var averagePackageBytes: Int
        /// Raw signatures per second through `rawSign`, at the same concurrency.
        public var rawSignaturesPerSecond: Double
        /// Raw signatures/s divided by orders/s: what one package costs, counted in raw signatures.
        public var ratio: Double
    }

    /// Builds `orders` distinct packages (own orderIdentifier and authenticationToken each) sharing one asset
    /// set, on `concurrency` tasks, then times `rawSign` the same way for comparison.
    public static func run(
        orders: Int, assets profile: AssetProfile, signer: any PackageSigner,
        concurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        rawSign: @escaping @Sendable () throws -> Void
    ) async throws -> Result {
        let orders = max(1, orders)
        let workers = max(1, concurrency)
        let orderType = signer.orderTypeIdentifier ?? "order.com.example.benchmark"
        let (files, images) = assetFiles(profile)
        let assetSet = try AssetSet(files: files)
        let documents = (0..<orders).map { orderJSON(index: $0, orderType: orderType, images: images) }
        let builder = OrderPackageBuilder(signer: signer)
        let signingTime = Date()

        let clock = ContinuousClock()
        let start = clock.now
        let totalBytes = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var bytes = 0
                    for index in stride(from: worker, to: orders, by: workers) {
                        bytes += try builder.build(
                            orderJSON: documents[index], assets: assetSet, signingTime: signingTime
                        ).bytes.count
                    }
                    return bytes
                }
            }
            return try await group.reduce(0, +)
        }
        let buildSeconds = seconds(clock.now - start)

        let signatures = min(orders, 2000)
        let signStart = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for _ in stride(from: worker, to: signatures, by: workers) { try rawSign() }
                }
            }
            try await group.waitForAll()
        }
        let signSeconds = Self.seconds(clock.now - signStart)
        let ordersPerSecond = Double(orders) / buildSeconds
        let signaturesPerSecond = Double(signatures) / signSeconds
        return Result(
            orders: orders, concurrency: workers, seconds: buildSeconds, ordersPerSecond: ordersPerSecond,
            millisecondsPerOrder: buildSeconds * 1000 / Double(orders), averagePackageBytes: totalBytes / orders,
            rawSignaturesPerSecond: signaturesPerSecond, ratio: signaturesPerSecond / ordersPerSecond
        )
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// PNG signature followed by random bytes: realistic for compression (none possible) and for hashing.
    private static func fakePNG(size: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes.reserveCapacity(size)
        while bytes.count < size { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
        return bytes
    }

    private static func assetFiles(_ profile: AssetProfile) -> (files: [String: [UInt8]], lineItemImages: [String]) {
        switch profile {
        case .light:
            return (["logo.png": fakePNG(size: 600)], [])
        case .heavy:
            let images = ["item-1.png", "item-2.png"]
            var files = ["logo.png": fakePNG(size: 200_000)]
            for image in images { files[image] = fakePNG(size: 200_000) }
            return (files, images)
        }
    }

    private static func orderJSON(index: Int, orderType: String, images: [String]) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let token = Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let items = images.enumerated().map { offset, image in
            #"{"title":"Item \#(offset + 1)","quantity":1,"image":"\#(image)","price":{"amount":19.99,"currency":"USD"}}"#
        }
        let json = """
            {"schemaVersion":1,"orderTypeIdentifier":"\(orderType)","orderIdentifier":"bench-\(index)",\
            "orderType":"ecommerce","orderNumber":"B\(100_000 + index)","createdAt":"2025-01-02T03:04:05Z",\
            "updatedAt":"2025-01-02T03:04:05Z","status":"open","authenticationToken":"\(token)",\
            "webServiceURL":"https://orders.example.com/api/","orderManagementURL":"https://example.com/orders/\(index)",\
            "merchant":{"merchantIdentifier":"merchant.com.example","displayName":"Example Store",\
            "url":"https://example.com","logo":"logo.png"},\
            "payment":{"total":{"amount":\(19.99 * Double(max(1, images.count))),"currency":"USD"},"status":"paid"},\
            "lineItems":[\(items.joined(separator: ","))]}
            """
        return Array(json.utf8)
    }
}
