// swift-tools-version:6.1
// The generator's command line, built apart from the root package: its dependencies (OpenAPIKit, Yams) stay out of
// every build of the server, and scripts/generate-client runs it.
import PackageDescription

let package = Package(
    name: "openapi-generator",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3")]
)
