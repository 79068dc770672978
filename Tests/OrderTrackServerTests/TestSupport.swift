import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OrderModel
import OrderPersistence
import OrderTrackDashboard
import OrderTrackServer
import OrderZip
import TestSupport
import Testing

/// A server on a fresh data directory, driven over real HTTP on loopback.
struct TestServer {
    static let publicURL = "https://orders.example.test"

    let dataDirectory: URL
    /// `nil` for SQLite in the data directory; a fresh PostgreSQL schema when the suite runs on PostgreSQL.
    let database: String?
    let push: PushConfiguration
    /// How long a request body may take (the server's default unless a test shortens it).
    var requestBodyTimeout: Duration = .seconds(30)
    /// How long a connection may stay without a request (the server's default unless a test shortens it).
    var idleTimeout: Duration = .seconds(75)
    /// Registration cap and request rates: the server's defaults, which ordinary tests stay well within.
    var limits = LimitsConfiguration()
    /// The server's dates: the wall clock unless a test moves time itself (its waits stay on the continuous clock).
    var now: @Sendable () -> Date = Date.init
    /// The server's whole clock, dates and waits, when a test holds time still; replaces ``now``.
    var clock: ServerClock?
    /// The lowest level the server logs at.
    var logLevel: Logger.Level = .warning
    /// Apple Pay trust and gateway (Apple's alone unless a test adds its own root or gateway).
    var applePay = ApplePayConfiguration()
    /// Order lookup's rate limit and cache (the server's defaults unless a test sets its own).
    var lookup = LookupConfiguration()
    /// Development mode, as every test's first start needs (it creates the demo merchant); a later start on the same
    /// data directory may run as production with the generated master key.
    var developmentMode = true

    /// Without a mock APNs, pushes go to a closed local port: tests never reach the real APNs.
    /// `database` overrides the test database for this server.
    init(push: PushConfiguration = PushConfiguration(endpoint: URL(string: "https://127.0.0.1:9")!), database: String? = nil) throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-test-\(UUID().uuidString)", isDirectory: true)
        self.database = try database ?? TestDatabase.storeURL()
        self.push = push
    }

    func configuration() throws -> ServerConfiguration {
        var configuration = try ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: dataDirectory.path, databaseURL: database, publicURL: Self.publicURL, push: push)
        configuration.requestBodyTimeout = requestBodyTimeout
        configuration.idleTimeout = idleTimeout
        configuration.limits = limits
        configuration.applePay = applePay
        configuration.lookup = lookup
        // Every test drives the demo merchant, on PostgreSQL too.
        configuration.developmentMode = developmentMode
        if !developmentMode { configuration.masterKey = .file(path: dataDirectory.appendingPathComponent("master.key").path) }
        return configuration
    }

    /// Starts the server on this data directory, runs `body` against it, stops it (closing the database).
    /// The server logs warnings and errors to `logger`, by default the console. `testing` is `.live` (real HTTP on
    /// loopback) unless a test wants the requests answered in its own task (`.router`, where task-locals reach the
    /// handlers).
    func run<Value: Sendable>(
        logger: Logger = Logger(label: "ordertrack-test"), testing: TestingSetup = .live, _ body: @Sendable (Client) async throws -> Value
    ) async throws -> Value {
        var logger = logger
        logger.logLevel = logLevel
        let server = try await OrderTrackApplication.build(
            configuration: try configuration(), logger: logger, routes: [Dashboard()],
            clock: clock ?? ServerClock(date: now, waits: ContinuousClock()))
        let credentials = try loadCredentials()
        do {
            let value = try await server.application.test(testing) { client in
                try await body(Client(client: client, apiKey: credentials.apiKey, credentials: credentials, store: server.store))
            }
            try await server.store.shutdown()
            return value
        } catch {
            try? await server.store.shutdown()
            throw error
        }
    }

    func loadCredentials() throws -> DevelopmentCredentials {
        let data = try Data(contentsOf: dataDirectory.appendingPathComponent("dev-credentials.json"))
        return try JSONDecoder().decode(DevelopmentCredentials.self, from: data)
    }

    func remove() {
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}

/// HTTP calls as a merchant and as a Wallet device would make them.
struct Client: Sendable {
    let client: any TestClientProtocol
    let apiKey: String
    let credentials: DevelopmentCredentials
    /// The server's own store, for setup that has no HTTP endpoint (operator commands).
    let store: any OrderStore

    struct Reply: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: [UInt8]

        var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    var port: Int { client.port ?? 0 }

    func call(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: [UInt8]? = nil) async throws -> Reply {
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        return Reply(status: response.status, headers: response.headers, body: Array(response.body.readableBytesView))
    }

    /// A merchant API call with the development API key (Bearer), a JSON body if given.
    func merchant(_ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, headers extra: HTTPFields = [:]) async throws -> Reply {
        var headers = extra
        headers[.authorization] = "Bearer \(apiKey)"
        if json != nil { headers[.contentType] = "application/json" }
        return try await call(method, path, headers: headers, body: json?.serialized())
    }

    /// A device call with `AppleOrder <token>`.
    func device(_ method: HTTPRequest.Method, _ path: String, token: String?, json: JSONValue? = nil, headers extra: HTTPFields = [:]) async throws
        -> Reply
    {
        var headers = extra
        if let token { headers[.authorization] = "AppleOrder \(token)" }
        return try await call(method, path, headers: headers, body: json?.serialized())
    }
}

/// An order made through the merchant API: the four orderDetails values Apple Pay would hand Wallet, and the answer.
struct CreatedTestOrder: Sendable {
    var type: String
    var id: String
    var token: String
    var reply: Client.Reply
    /// The order's merchant API path.
    var path: String { "/api/v1/orders/\(type)/\(id)" }
}

extension Client {
    /// Creates `content` (a sample order by default), expecting 201, and reads its orderDetails.
    func createOrder(_ content: JSONValue = SampleContent.order, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> CreatedTestOrder
    {
        let reply = try await merchant(.post, "/api/v1/orders", json: content)
        #expect(reply.status == .created, "\(reply.text)", sourceLocation: sourceLocation)
        let details = try #require(reply.json["orderDetails"], sourceLocation: sourceLocation)
        return CreatedTestOrder(
            type: try #require(details["orderTypeIdentifier"]?.stringValue, sourceLocation: sourceLocation),
            id: try #require(details["orderIdentifier"]?.stringValue, sourceLocation: sourceLocation),
            token: try #require(details["authenticationToken"]?.stringValue, sourceLocation: sourceLocation), reply: reply)
    }
}

/// Order content a merchant sends at payment completion.
enum SampleContent {
    /// An order with an order number of its own: order numbers are unique within an order type.
    static var order: JSONValue { order(number: uniqueNumber()) }

    /// A fresh order number (`T-` and 8 hexadecimal digits).
    static func uniqueNumber() -> String { "T-" + UUID().uuidString.prefix(8).lowercased() }

    static func order(number: String) -> JSONValue {
        [
            "merchant": ["displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com"],
            "orderManagementURL": .string("https://shop.example.com/orders/\(number)"),
            "orderNumber": .string(number),
            "payment": ["total": ["amount": "42", "currency": "USD"], "status": "paid"],
            "lineItems": [["title": "Coffee beans", "quantity": 2, "price": ["amount": "21.00", "currency": "USD"]]],
            "fulfillments": [["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"]],
        ]
    }
}

/// Entry names of a zip archive, read with our reader.
enum ZipNames {
    static func of(_ archive: [UInt8]) -> [String] {
        ZipReader.inspect(archive).files.map(\.name)
    }
}

/// The master key of every store this test target opens directly.
let testMasterKey = MasterKey.generate()

/// A configuration in development mode (the data directory's generated master key and demo merchant), as the
/// `ordertrack serve --dev` processes of a test use it.
func developmentConfiguration(dataDirectory: String, databaseURL: String?) throws -> ServerConfiguration {
    var configuration = try ServerConfiguration(dataDirectory: dataDirectory, databaseURL: databaseURL)
    configuration.developmentMode = true
    return configuration
}
