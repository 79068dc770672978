import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import OrderLookupSigning
import OrderModel
import OrderTrackServer

/// Measures order lookup over loopback: lookups of an order with five line items (five signed transactions per answer,
/// cached per order version after the first) against `/healthz` in the same run.
struct BenchLookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract:
            "Benchmark GET /inApps/v1/lookup/{orderId} over loopback (build with -c release): an order with 5 line items vs /healthz, same run."
    )

    @Option(help: "Concurrent connections") var connections = 16
    @Option(help: "Seconds per measurement") var seconds = 5.0

    func validate() throws {
        guard connections > 0, seconds > 0 else { throw ValidationError("connections and seconds must be positive") }
    }

    func run() async throws {
        var lookup = LookupConfiguration()
        // The benchmark measures serving, not the limiter: one key makes every request.
        lookup.rateLimit = 1_000_000_000
        try await BenchmarkServer.run(lookup: lookup) { base, _, credentials in
            guard let key = credentials.lookup else { throw usageError("the development bootstrap made no lookup key") }
            try await BenchmarkServer.withHTTPClient(connections: connections) { http in
                try await createOrder(http: http, base: base, apiKey: credentials.apiKey)
                // One token for the whole run (Apple's clients make one per request; verifying is the same work either way).
                let claims = LookupAPIClaims(iss: key.issuerId, bid: key.bundleId, exp: Date().addingTimeInterval(3_000), iat: Date())
                let token = try await LookupAPIToken.sign(
                    claims, keyId: key.keyId, privateKeyPEM: try String(contentsOfFile: key.privateKey, encoding: .utf8))
                let url = base + "/inApps/v1/lookup/BENCH-1"
                _ = try await BenchmarkServer.load(http: http, connections: connections, url: url, authorization: "Bearer \(token)", seconds: 1)
                let throughput = try await BenchmarkServer.compare(
                    http: http, connections: connections, baseline: (base + "/healthz", nil), subject: (url, "Bearer \(token)"), seconds: seconds)
                print(
                    """
                    throughput (\(connections) connections, \(String(format: "%g", seconds)) s each in \(throughput.roundRatios.count) alternating rounds, same run):
                      GET /healthz                          \(String(format: "%8.0f", throughput.baseline)) req/s
                      GET /inApps/v1/lookup (5 line items)  \(String(format: "%8.0f", throughput.subject)) req/s
                      ratio lookup / healthz                \(throughput.description)
                      CPU per request                       \(throughput.cpuDescription) (this process: server and client)
                    """)
            }
        }
    }

    private func createOrder(http: HTTPClient, base: String, apiKey: String) async throws {
        var create = HTTPClientRequest(url: "\(base)/api/v1/orders")
        create.method = .POST
        create.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
        create.headers.add(name: "Content-Type", value: "application/json")
        let items: [JSONValue] = (1...5).map { index in
            ["title": .string("Item \(index)"), "sku": .string("SKU-\(index)"), "quantity": 1, "price": ["amount": "9.99", "currency": "USD"]]
        }
        let content: JSONValue = [
            "merchant": ["displayName": "Bench Shop", "merchantIdentifier": "merchant.bench", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders/1", "orderNumber": "BENCH-1",
            "payment": ["total": ["amount": "49.95", "currency": "USD"], "status": "paid"], "lineItems": .array(items),
        ]
        create.body = .bytes(ByteBuffer(bytes: content.serialized()))
        let response = try await http.execute(create, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .created else { throw usageError("could not create the benchmark order: \(response.status)") }
    }
}
