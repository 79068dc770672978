import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import OrderModel
import OrderPersistence
import OrderTrackBenchmarks
import OrderTrackServer

/// `ordertrack bench dashboard`: the dashboard's orders list with 100,000 orders of one merchant (and other merchants'
/// orders beside them), measured over loopback by a real HTTP client signed in with the session cookie, against the
/// merchant API's own list in the same run.
struct BenchDashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract:
            "Benchmark the dashboard's orders list at 100,000 orders (build with -c release): first page, a deep page, a status filter, searches by order number and identifier, against GET /api/v1/orders in the same run."
    )

    @Option(help: "Run on this PostgreSQL database (postgres://…) instead of SQLite, in a new schema bench_<random>, dropped at the end")
    var postgres: String?

    @Option(help: "Orders of the signed-in merchant")
    var orders = 100_000

    @Option(help: "Orders of each of two other merchants")
    var otherOrders = 50_000

    @Option(help: "Sequential requests per case (one connection)")
    var samples = 500

    func validate() throws {
        guard orders >= 10_000, otherOrders >= 0, samples >= 10 else {
            throw ValidationError("--orders must be at least 10000, --other-orders not negative, --samples at least 10")
        }
    }

    func run() async throws {
        let databaseURL = try postgres.map(BenchmarkServer.freshPostgresSchema)
        print("== \(postgres == nil ? "SQLite" : "PostgreSQL"): \(orders) orders of the merchant, \(2 * otherOrders) of two others ==")
        try await BenchmarkServer.run(databaseURL: databaseURL) { base, store, credentials in
            guard let store = store as? SQLOrderStore else { throw usageError("seeding needs the SQL store") }
            let started = ContinuousClock.now
            let identifiers = try await seed(store, credentials: credentials)
            print("seeded in \(String(format: "%.1f", (ContinuousClock.now - started).inSeconds)) s")
            let deep = try await deepCursor(store, merchantID: credentials.merchantID)

            // Redirects are not followed: the sign-in's 303 carries the session cookie.
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            do {
                let cookie = try await signIn(http, base: base, apiKey: credentials.apiKey)
                let session = ("Cookie", cookie)
                // Batches start after the 100 cancelled orders: the searches find the 4,322nd of the third batch and the
                // 778th of the fifth; each answer is checked for what it must show (rows show the identifier: the
                // generated documents have no order number of their own).
                let cases: [(name: String, path: String, header: (String, String), shows: String)] = [
                    (
                        "GET /api/v1/orders?limit=25 (baseline)", "/api/v1/orders?limit=25", ("Authorization", "Bearer \(credentials.apiKey)"),
                        "nextCursor"
                    ),
                    ("dashboard: first page", "/dashboard", session, "\(identifiers)\(orders - 1 - (orders - 100 - 1) % 10_000)-"),
                    ("dashboard: page 2,000 (cursor)", "/dashboard?cursor=\(deep)", session, "order-link"),
                    ("dashboard: status open", "/dashboard?status=open", session, "Open"),
                    ("dashboard: status cancelled (rare, oldest)", "/dashboard?status=cancelled", session, "\(identifiers)0-99"),
                    ("dashboard: search order number", "/dashboard?q=W-20100-4321", session, "\(identifiers)20100-4321"),
                    ("dashboard: search identifier", "/dashboard?q=\(identifiers)40100-777", session, "\(identifiers)40100-777"),
                ]
                var results: [(String, Latencies)] = []
                for entry in cases {
                    results.append(
                        (
                            entry.name,
                            try await Latencies.measure(http, url: base + entry.path, header: entry.header, shows: entry.shows, samples: samples)
                        ))
                }
                try await http.shutdown()
                Latencies.report(results, subject: "dashboard")
            } catch {
                try await http.shutdown()
                throw error
            }
        }
    }

    /// The merchant's orders in batches of alternating status (`open` one batch in three, else `completed`), after 100
    /// `cancelled` ones; two other merchants' orders interleaved before, so that each list skips none of them.
    /// Returns the merchant's order identifier prefix.
    private func seed(_ store: SQLOrderStore, credentials: DevelopmentCredentials) async throws -> String {
        let document = BenchDashboardCommand.document
        for other in 0..<2 where otherOrders > 0 {
            let merchant = try await store.createMerchant(name: "Other shop \(other)")
            let orderType = "order.com.example.other\(other)"
            try await store.upsertOrderType(
                OrderTypeRecord(orderTypeIdentifier: orderType, merchantID: merchant.id, identity: .directory(path: "/nonexistent")))
            try await BenchmarkSeed(
                merchantID: merchant.id, orderTypeIdentifier: orderType, orderCount: otherOrders, registrationCount: 0, document: document,
                authenticationTokenPrefix: "bench-\(UUID().uuidString)-", orderIdentifierPrefix: "x\(other)-", orderNumberPrefix: "W-"
            ).insert(into: store)
        }
        let prefix = "bench-order-"
        let batch = 10_000
        var seeded = 0
        func insert(_ count: Int, status: String) async throws {
            try await BenchmarkSeed(
                merchantID: credentials.merchantID, orderTypeIdentifier: credentials.orderTypeIdentifier, orderCount: count, registrationCount: 0,
                document: document, status: status, authenticationTokenPrefix: "bench-\(UUID().uuidString)-",
                orderIdentifierPrefix: "\(prefix)\(seeded)-", orderNumberPrefix: "W-\(seeded)-"
            ).insert(into: store)
            seeded += count
        }
        try await insert(100, status: "cancelled")
        var index = 0
        while seeded < orders {
            try await insert(min(batch, orders - seeded), status: index % 3 == 1 ? "open" : "completed")
            index += 1
        }
        return prefix
    }

    /// A cursor 50,000 orders deep (page 2,000 of 25), from the store's own paging.
    private func deepCursor(_ store: SQLOrderStore, merchantID: String) async throws -> String {
        var cursor: String?
        for _ in 0..<50 {
            cursor = try await store.recentOrders(
                merchantID: merchantID, orderTypeIdentifier: nil, status: nil, search: nil, before: cursor, limit: 1000
            ).nextCursor
        }
        guard let cursor else { throw usageError("the merchant has fewer than 50,000 orders") }
        return cursor
    }

    private func signIn(_ http: HTTPClient, base: String, apiKey: String) async throws -> String {
        var request = HTTPClientRequest(url: "\(base)/dashboard/sign-in")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: "api_key=\(apiKey.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? apiKey)"))
        let response = try await http.execute(request, timeout: .seconds(30))
        guard response.status == .seeOther, let cookie = response.headers["Set-Cookie"].first?.split(separator: ";").first else {
            throw usageError("sign-in answered \(response.status)")
        }
        return String(cookie)
    }

    /// A realistic stored order: what each row's fulfillment column is read from.
    static let document = Array(
        #"""
        {"schemaVersion":1,"orderType":"ecommerce","orderTypeIdentifier":"order.dev.ordertrack.demo","orderIdentifier":"bench","status":"open","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z","webServiceURL":"https://bench.example/wallet","authenticationToken":"bench","orderManagementURL":"https://shop.example.com/orders/1","merchant":{"displayName":"Bench Shop","merchantIdentifier":"merchant.bench","url":"https://shop.example.com"},"payment":{"total":{"amount":"47.50","currency":"USD"},"status":"paid","summaryItems":[{"label":"Subtotal","value":{"amount":"42.00","currency":"USD"}},{"label":"Shipping","value":{"amount":"5.50","currency":"USD"}}]},"lineItems":[{"title":"Coffee beans","subtitle":"Ethiopia Yirgacheffe, 250 g","quantity":2,"price":{"amount":"18.00","currency":"USD"}},{"title":"Paper filters","quantity":1,"price":{"amount":"6.00","currency":"USD"}}],"fulfillments":[{"fulfillmentType":"shipping","fulfillmentIdentifier":"ship-1","status":"onTheWay","carrier":"UPS","trackingNumber":"1Z999AA10123456784"}]}
        """#.utf8)
}
