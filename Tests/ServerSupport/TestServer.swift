import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OrderModel
import OrderPersistence
import OrderSigning
import OrderTrackDashboard
import OrderTrackServer
import OrderZip
import TestSupport
import Testing

/// A server on a fresh data directory, driven over real HTTP on loopback.
package struct TestServer {
    package static let publicURL = "https://orders.example.test"

    package let dataDirectory: URL
    /// `nil` for SQLite in the data directory; a fresh PostgreSQL schema when the suite runs on PostgreSQL.
    package let database: String?
    package let push: PushConfiguration
    /// How long a request body may take (the server's default unless a test shortens it).
    package var requestBodyTimeout: Duration = .seconds(30)
    /// How long a connection may stay without a request (the server's default unless a test shortens it).
    package var idleTimeout: Duration = .seconds(75)
    /// Registration cap and request rates: the server's defaults, which ordinary tests stay well within.
    package var limits = LimitsConfiguration()
    /// The server's dates: the wall clock unless a test moves time itself (its waits stay on the continuous clock).
    package var now: @Sendable () -> Date = Date.init
    /// The server's whole clock, dates and waits, when a test holds time still; replaces ``now``.
    package var clock: ServerClock?
    /// The lowest level the server logs at.
    package var logLevel: Logger.Level = .warning
    /// Apple Pay trust and gateway (Apple's alone unless a test adds its own root or gateway).
    package var applePay = ApplePayConfiguration()
    /// Order lookup's rate limit and cache (the server's defaults unless a test sets its own).
    package var lookup = LookupConfiguration()
    /// Carrier webhooks' key sets and caches, and how events are applied (the server's defaults unless a test serves
    /// keys from memory, or polls the inbox often because it puts events there behind the worker's back).
    package var carriers = CarrierConfiguration()
    /// Webhook deliveries (the server's defaults unless a test sets its own address policy).
    package var webhooks = WebhookConfiguration()
    /// Development mode, as every test's first start needs (it creates the demo merchant); a later start on the same
    /// data directory may run as production with the generated master key.
    package var developmentMode = true

    /// Without a mock APNs, pushes go to a closed local port: tests never reach the real APNs.
    /// `database` overrides the test database for this server.
    package init(push: PushConfiguration = PushConfiguration(endpoint: URL(string: "https://127.0.0.1:9")!), database: String? = nil) throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-test-\(UUID().uuidString)", isDirectory: true)
        self.database = try database ?? TestDatabase.storeURL()
        self.push = push
        let identities = dataDirectory.appendingPathComponent("identities", isDirectory: true)
        try FileManager.default.createDirectory(at: identities, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try Self.demoIdentity.get(), to: identities.appendingPathComponent(Self.demoOrderType))
    }

    static let demoOrderType = "order.dev.ordertrack.demo"

    /// One demo identity per test process, copied into each server's data directory, where the development bootstrap
    /// reuses it: generating its three RSA keys took seconds of a core per server in a debug build, with 160 servers
    /// started in parallel tests. A test whose clock lies outside its validity gets a new one made as before.
    static let demoIdentity = Result { () throws -> URL in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-demo-identity-\(UUID().uuidString)")
        _ = try DevelopmentIdentity.create(orderTypeIdentifier: demoOrderType, in: directory)
        return directory
    }

    package func configuration() throws -> ServerConfiguration {
        var configuration = try ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: dataDirectory.path, databaseURL: database, publicURL: Self.publicURL, push: push)
        configuration.requestBodyTimeout = requestBodyTimeout
        configuration.idleTimeout = idleTimeout
        configuration.limits = limits
        configuration.applePay = applePay
        configuration.lookup = lookup
        configuration.carriers = carriers
        configuration.webhooks = webhooks
        // Every test drives the demo merchant, on PostgreSQL too.
        configuration.developmentMode = developmentMode
        if !developmentMode { configuration.masterKey = .file(path: dataDirectory.appendingPathComponent("master.key").path) }
        return configuration
    }

    /// Starts the server on this data directory, runs `body` against it, stops it (closing the database).
    /// The server logs warnings and errors to `logger`, by default the console. `testing` is `.live` (real HTTP on
    /// loopback) unless a test wants the requests answered in its own task (`.router`, where task-locals reach the
    /// handlers).
    package func run<Value: Sendable>(
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

    package func loadCredentials() throws -> DevelopmentCredentials {
        let data = try Data(contentsOf: dataDirectory.appendingPathComponent("dev-credentials.json"))
        return try JSONDecoder().decode(DevelopmentCredentials.self, from: data)
    }

    package func remove() {
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}

/// HTTP calls as a merchant and as a Wallet device would make them.
package struct Client: Sendable {
    package let client: any TestClientProtocol
    package let apiKey: String
    package let credentials: DevelopmentCredentials
    /// The server's own store, for setup that has no HTTP endpoint (operator commands).
    package let store: any OrderStore

    package struct Reply: Sendable {
        package var status: HTTPResponse.Status
        package var headers: HTTPFields
        package var body: [UInt8]

        package var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
        package var text: String { String(decoding: body, as: UTF8.self) }

        /// Expects the error envelope (audit M7): `status`, JSON, the error's `code` and a message.
        package func expectEnvelope(status: HTTPResponse.Status, code: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(self.status == status, "\(text)", sourceLocation: sourceLocation)
            #expect(headers[.contentType] == "application/json", sourceLocation: sourceLocation)
            #expect(json["error"]?["code"] == .string(code), "\(text)", sourceLocation: sourceLocation)
            #expect(json["error"]?["message"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
        }
    }

    package var port: Int { client.port ?? 0 }

    package func call(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: [UInt8]? = nil) async throws -> Reply {
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        return Reply(status: response.status, headers: response.headers, body: Array(response.body.readableBytesView))
    }

    /// A merchant API call with the development API key (Bearer), a JSON body if given.
    package func merchant(_ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, headers extra: HTTPFields = [:]) async throws -> Reply
    {
        var headers = extra
        headers[.authorization] = "Bearer \(apiKey)"
        if json != nil { headers[.contentType] = "application/json" }
        return try await call(method, path, headers: headers, body: json?.serialized())
    }

    /// A device call with `AppleOrder <token>`.
    package func device(_ method: HTTPRequest.Method, _ path: String, token: String?, json: JSONValue? = nil, headers extra: HTTPFields = [:])
        async throws
        -> Reply
    {
        var headers = extra
        if let token { headers[.authorization] = "AppleOrder \(token)" }
        return try await call(method, path, headers: headers, body: json?.serialized())
    }
}

/// An order made through the merchant API: the four orderDetails values Apple Pay would hand Wallet, and the answer.
package struct CreatedTestOrder: Sendable {
    package var type: String
    package var id: String
    package var token: String
    package var reply: Client.Reply
    /// The order's merchant API path.
    package var path: String { "/api/v1/orders/\(type)/\(id)" }
    /// The three values to destructure: `let (type, id, token) = try await client.createOrder().details`.
    package var details: (type: String, id: String, token: String) { (type, id, token) }
}

extension Client {
    /// Creates `content` (a sample order by default), expecting 201, and reads its orderDetails.
    package func createOrder(_ content: JSONValue = SampleContent.order, sourceLocation: SourceLocation = #_sourceLocation) async throws
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

    /// The order's push log (as the merchant API lists it) once `done` holds of it, or as it is after 20 s (the
    /// expectations then say what is missing).
    package func pushLog(_ type: String, _ id: String, until done: ([JSONValue]) -> Bool) async throws -> [JSONValue] {
        var log: [JSONValue] = []
        try await Poll.until(timeout: .seconds(20)) {
            log = try await merchant(.get, "/api/v1/orders/\(type)/\(id)/pushes").json["data"]?.arrayValue ?? []
            return done(log)
        }
        return log
    }

    /// Creates a sample order numbered `number` (order numbers are unique within an order type), expecting 201.
    package func createOrder(number: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> CreatedTestOrder {
        try await createOrder(SampleContent.order(number: number), sourceLocation: sourceLocation)
    }
}

/// Order content a merchant sends at payment completion.
package enum SampleContent {
    /// An order with an order number of its own: order numbers are unique within an order type.
    package static var order: JSONValue { order(number: uniqueNumber()) }

    /// A fresh order number (`T-` and 8 hexadecimal digits).
    package static func uniqueNumber() -> String { "T-" + UUID().uuidString.prefix(8).lowercased() }

    package static func order(number: String) -> JSONValue {
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
package enum ZipNames {
    package static func of(_ archive: [UInt8]) -> [String] {
        ZipReader.inspect(archive).files.map(\.name)
    }
}

/// The master key of every store this test target opens directly.
package let testMasterKey = MasterKey.generate()

/// A configuration in development mode (the data directory's generated master key and demo merchant), as the
/// `ordertrack serve --dev` processes of a test use it.
package func developmentConfiguration(dataDirectory: String, databaseURL: String?) throws -> ServerConfiguration {
    var configuration = try ServerConfiguration(dataDirectory: dataDirectory, databaseURL: databaseURL)
    configuration.developmentMode = true
    return configuration
}
