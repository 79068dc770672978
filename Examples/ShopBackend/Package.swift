// swift-tools-version:6.1
// A shop's backend on Hummingbird that makes and updates its Wallet orders through OrderTrackClient.
import PackageDescription

let package = Package(
    name: "ShopBackend",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "OrderTrack", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "ShopBackend",
            dependencies: [
                .product(name: "OrderTrackClient", package: "OrderTrack"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
