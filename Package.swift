// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "OrderTrack",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WireFormats", targets: ["WireFormats"]),
        .library(name: "OrderModel", targets: ["OrderModel"]),
        .library(name: "BoundedCache", targets: ["BoundedCache"]),
        .library(name: "RequestSyntax", targets: ["RequestSyntax"]),
        .library(name: "OrderZip", targets: ["OrderZip"]),
        .library(name: "OrderSigning", targets: ["OrderSigning"]),
        .library(name: "CMSVerification", targets: ["CMSVerification"]),
        .library(name: "OrderPackage", targets: ["OrderPackage"]),
        .library(name: "OrderPersistence", targets: ["OrderPersistence"]),
        .library(name: "OrderTrackServer", targets: ["OrderTrackServer"]),
        .library(name: "APNs", targets: ["APNs"]),
        .library(name: "MockAPNs", targets: ["MockAPNs"]),
        .library(name: "ApplePay", targets: ["ApplePay"]),
        .library(name: "QRCode", targets: ["QRCode"]),
        .library(name: "OrderLookupSigning", targets: ["OrderLookupSigning"]),
        .library(name: "CarrierTracking", targets: ["CarrierTracking"]),
        .library(name: "OrderTrackClient", targets: ["OrderTrackClient"]),
        .executable(name: "ordertrack", targets: ["ordertrack"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // CMS signing is SPI in swift-certificates: pinned exactly because SPI may change between releases.
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Real concurrent HTTP clients for the server tests and `ordertrack bench serve`.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // HTTP/2 over TLS for the APNs client and the mock APNs server.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // HTTP/1 parts as swift-http-types values, for the handler that answers malformed requests.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        // The connection pool in OrderPersistence works with PostgresNIO's connections directly.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Server-rendered dashboard pages: logic-less templates, so the HTML stays editable without Swift.
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // ES256 JWTs: the App Store Server API tokens of order lookup and the signed transactions it answers with.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        // OrderTrackClient: the code swift-openapi-generator made from openapi.json runs on these (scripts/generate-client).
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
    ],
    targets: [
        // Encodings several modules write by hand (base64url, civil calendar days). No dependencies.
        .target(name: "WireFormats"),
        .testTarget(name: "WireFormatsTests", dependencies: ["WireFormats"]),
        // order.json: typed model, JSON value tree, schema and validator.
        .target(name: "OrderModel", dependencies: ["WireFormats"]),
        // The Authorization header syntax the server reads itself (Bearer, Basic, AppleOrder). No dependencies.
        .target(name: "RequestSyntax"),
        .testTarget(name: "RequestSyntaxTests", dependencies: ["RequestSyntax"]),
        // A cost-bounded LRU map for every in-memory cache. No dependencies.
        .target(name: "BoundedCache"),
        .testTarget(name: "BoundedCacheTests", dependencies: ["BoundedCache"]),
        // QR codes (byte mode, ISO/IEC 18004) as SVG or PGM, for links shown to phones. No dependencies.
        .target(name: "QRCode"),
        // Compared with segno module by module and read back with zbarimg.
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "TestSupport"]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // Minimal zip writer/reader for .order packages, with safety checks on read.
        .target(name: "OrderZip", dependencies: ["CZlib", "WireFormats"]),
        // Signing identities (PEM, encrypted PKCS#8, PKCS#12), CMS detached signatures, development identities.
        .target(
            name: "OrderSigning",
            dependencies: [
                "WireFormats",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // CMS SignedData read from BER or DER in every form real signers write, and one signer's signature checked:
        // shared by the package verifier and Apple Pay token verification.
        .target(
            name: "CMSVerification",
            dependencies: [
                "WireFormats",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Builds and verifies signed .order packages.
        .target(
            name: "OrderPackage",
            dependencies: [
                "CMSVerification", "OrderModel", "OrderZip", "OrderSigning", "BoundedCache",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            // Apple's public roots and WWDR intermediates, embedded like ApplePay's root (see Resources/README.md).
            exclude: ["Resources/README.md"],
            resources: [
                .embedInCode("Resources/AppleRootCA.pem"), .embedInCode("Resources/AppleRootCA-G3.pem"),
                .embedInCode("Resources/AppleWWDRCAG3.pem"), .embedInCode("Resources/AppleWWDRCAG4.pem"),
                .embedInCode("Resources/AppleWWDRCAG5.pem"), .embedInCode("Resources/AppleWWDRCAG6.pem"),
            ]
        ),
        // Persistence: one store interface, one SQL vocabulary.
        .target(
            name: "OrderPersistence",
            dependencies: [
                "WireFormats",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                // The store is a service of the application's group, which closes it last.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // HTTP: the Wallet Orders web service and the merchant API.
        .target(
            name: "OrderTrackServer",
            dependencies: [
                "ApplePay", "OrderModel", "OrderPackage", "OrderSigning", "OrderPersistence", "APNs", "BoundedCache", "QRCode", "RequestSyntax",
                "WireFormats", "OrderLookupSigning", "CarrierTracking",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [.copy("Resources/openapi.json"), .copy("Resources/Track")]
        ),
        // The merchants' dashboard: pages, the checkout playground and the session, over the server's services. The
        // server does not depend on it; the command line and the tests add it to the server's routes.
        .target(
            name: "OrderTrackDashboard",
            dependencies: [
                "OrderTrackServer", "OrderModel", "OrderPersistence", "OrderSigning", "WireFormats",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Resources/Dashboard")]
        ),
        // APNs provider client: HTTP/2, certificate or token auth, one long-lived connection per credential.
        .target(
            name: "APNs",
            dependencies: [
                "WireFormats",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // A mock APNs (HTTP/2 over TLS) that validates requests like APNs, records pushes and injects faults.
        .target(
            name: "MockAPNs",
            dependencies: [
                "WireFormats",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Apple Pay payment tokens: signature verification (pinned Apple Root CA - G3) and EC_v1/RSA_v1 decryption.
        .target(
            name: "ApplePay",
            dependencies: [
                "BoundedCache", "CMSVerification", "OrderModel", "WireFormats",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            resources: [.embedInCode("Resources/AppleRootCA-G3.pem")]
        ),
        // Order lookup wire-compatible with the App Store Server API: the per-deployment signing chain, the signed
        // transactions (JWSTransaction) of an order's line items and the API tokens that authorize a lookup.
        .target(
            name: "OrderLookupSigning",
            dependencies: [
                "OrderModel",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Carrier tracking webhooks (AfterShip, EasyPost, Shippo, ShipEngine and our generic format): signatures checked
        // on the raw body, bounded parsers to one event shape, and the mapping to Wallet's shipping statuses. Pure: the
        // server owns HTTP, storage and key fetching.
        .target(
            name: "CarrierTracking",
            dependencies: [
                "OrderModel", "WireFormats",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Provider payloads written from each provider's public documentation, and signatures made by openssl (HMACs, an
        // RSA key and its JWKS): shared by the library's tests and the server's webhook tests.
        .target(
            name: "CarrierTestSupport",
            dependencies: ["TestSupport", "WireFormats"],
            path: "Tests/CarrierSupport",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "CarrierTrackingTests",
            dependencies: [
                "CarrierTracking", "CarrierTestSupport", "OrderModel", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Judged by OpenSSL's strict mode and by Apple's SignedDataVerifier (verify_transactions.py).
        .testTarget(
            name: "OrderLookupSigningTests",
            dependencies: [
                "OrderLookupSigning", "OrderModel", "TestSupport",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["verify_transactions.py"]
        ),
        // Package-building throughput and synthetic store rows for the `ordertrack bench` commands, kept out of the
        // libraries they measure.
        .target(
            name: "OrderTrackBenchmarks",
            dependencies: [
                "ApplePay", "OrderModel", "OrderPackage", "OrderSigning", "OrderPersistence", "WireFormats",
                // The seeding's generated rows are raw SQL, through the store's one raw door.
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "ordertrack",
            dependencies: [
                "ApplePay", "OrderModel", "OrderPackage", "OrderSigning", "OrderPersistence", "OrderTrackServer", "OrderTrackDashboard",
                "OrderTrackBenchmarks", "MockAPNs", "OrderLookupSigning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // What the test targets share: independent tools (python3, openssl, unzip), certificates made by openssl, the
        // test clock, the test database, log recording and polling for what only an outside observer sees.
        .target(name: "TestSupport", dependencies: [.product(name: "Logging", package: "swift-log")], path: "Tests/Support"),
        // What the server suites share, in process and in the integration target: a server on a fresh data directory
        // and its HTTP client, the `ordertrack serve` process, a local APNs, raw sockets, the change feed's markers.
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "MockAPNs", "OrderModel", "OrderPersistence", "OrderSigning", "OrderTrackDashboard", "OrderTrackServer", "OrderZip", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/ServerSupport"
        ),
        // The mock APNs and the APNs client wired together, with certificates made by openssl: for the APNs unit tests
        // and the fault tests of the integration target.
        .target(
            name: "APNsTestSupport",
            dependencies: ["APNs", "MockAPNs", "TestSupport"],
            path: "Tests/APNsSupport"
        ),
        .testTarget(name: "OrderModelTests", dependencies: ["OrderModel", "TestSupport"]),
        .testTarget(name: "OrderZipTests", dependencies: ["OrderZip", "TestSupport"]),
        .testTarget(
            name: "OrderSigningTests",
            dependencies: [
                "OrderSigning", "TestSupport", .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "OrderPersistenceTests",
            dependencies: ["OrderPersistence", "OrderTrackBenchmarks", "TestSupport", .product(name: "SQLKit", package: "sql-kit")]
        ),
        .testTarget(
            name: "APNsTests",
            dependencies: [
                "APNs", "APNsTestSupport", "MockAPNs", "TestSupport", "WireFormats",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "OrderPackageTests",
            dependencies: [
                "CMSVerification", "OrderPackage", "OrderModel", "OrderZip", "TestSupport",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ApplePayTests",
            dependencies: [
                "ApplePay", "OrderModel", "OrderTrackBenchmarks", "TestSupport", "WireFormats",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "OrderTrackBenchmarksTests",
            dependencies: ["OrderTrackBenchmarks", "OrderPackage", "OrderSigning", "OrderPersistence", "TestSupport"]
        ),
        // Runs the built `ordertrack` binary as a user would.
        .testTarget(name: "OrderTrackCLITests", dependencies: ["OrderModel", "OrderSigning", "TestSupport"]),
        .testTarget(
            name: "OrderTrackServerTests",
            dependencies: [
                "OrderTrackServer", "OrderTrackDashboard", "OrderPersistence", "OrderPackage", "OrderModel", "OrderZip", "MockAPNs", "TestSupport",
                "ApplePay", "QRCode", "OrderTrackBenchmarks", "OrderLookupSigning", "APNs", "OrderSigning", "ServerTestSupport",
                "CarrierTracking", "CarrierTestSupport", .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Apple's App Store Server Library as the order-lookup client (lookup_judge.py).
            exclude: ["lookup_judge.py"]
        ),
        // The merchant API's Swift client: Generated/ is swift-openapi-generator's output for openapi.json, committed and
        // checked against the document by `scripts/generate-client --check`; the rest is the hand-written layer.
        .target(
            name: "OrderTrackClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi-generator-config.yaml"]
        ),
        // Examples/ShopBackend is its own package, for a shop to copy; the same sources are a target here too, so that
        // the test command compiles them against the dependencies it has already built rather than compiling Hummingbird,
        // NIO and the client a second time in the example's own .build (five of CI's minutes).
        // scripts/shop-backend-check checks the example's manifest against this package and runs the binary.
        .executableTarget(
            name: "ShopBackend",
            dependencies: ["OrderTrackClient", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Examples/ShopBackend/Sources/ShopBackend"
        ),
        // The client against a live server over real HTTP.
        .testTarget(
            name: "OrderTrackClientTests",
            dependencies: [
                "OrderTrackClient", "OrderModel", "OrderTrackServer", "ServerTestSupport", "TestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        // Real time, real networks and other processes: APNs faults and push delivery against deadlines, a kill in the
        // middle of a fan-out, two `ordertrack serve` processes on one PostgreSQL, PostgreSQL going away, latencies
        // under another merchant's heavy work, rate limits and slow clients. `scripts/test` runs this target alone and
        // one test at a time, so that no other suite starves its deadlines.
        .testTarget(
            name: "OrderTrackIntegrationTests",
            dependencies: [
                "APNs", "APNsTestSupport", "MockAPNs", "OrderModel", "OrderPersistence", "OrderSigning", "OrderTrackServer", "OrderZip",
                "ServerTestSupport", "TestSupport", "CarrierTracking",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
