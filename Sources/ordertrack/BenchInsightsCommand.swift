import ArgumentParser
import AsyncHTTPClient
import Foundation
import OrderModel
import OrderPersistence
import OrderTrackBenchmarks
import OrderTrackServer

/// `ordertrack bench insights`: `GET /api/v1/insights` over the roll-ups 10,000,000 orders in a year make across
/// merchants, measured over loopback for a 30-day daily page and a 48-hour hourly page, against `/healthz` in the same
/// run.
struct BenchInsightsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insights",
        abstract:
            "Benchmark GET /api/v1/insights over a year of roll-ups of 10,000,000 orders across merchants (build with -c release): a 30-day daily page and a 48-hour hourly page, against GET /healthz in the same run."
    )

    @Option(help: "Run on this PostgreSQL database (postgres://…) instead of SQLite, in a new schema bench_<random>, dropped at the end")
    var postgres: String?

    @Option(help: "Orders in the year, across every merchant")
    var orders = 10_000_000

    @Option(help: "Merchants sharing them, one order type each (the signed-in merchant is one)")
    var merchants = 100

    @Option(help: "Sequential requests per case (one connection)")
    var samples = 500

    func validate() throws {
        guard merchants >= 1, orders >= merchants * 8_760 * 3, samples >= 10 else {
            throw ValidationError("--merchants must be at least 1, --orders at least 3 an hour for each merchant, --samples at least 10")
        }
    }

    func run() async throws {
        let databaseURL = try postgres.map(BenchmarkServer.freshPostgresSchema)
        print("== \(postgres == nil ? "SQLite" : "PostgreSQL"): the roll-ups of \(orders) orders over a year, \(merchants) merchants ==")
        try await BenchmarkServer.run(databaseURL: databaseURL) { base, store, credentials in
            guard let store = store as? SQLOrderStore else { throw usageError("seeding needs the SQL store") }
            let started = ContinuousClock.now
            let seeded = try await seed(store, credentials: credentials)
            try await store.refreshStatistics()
            print(
                "seeded \(seeded.rows) hourly roll-up rows and their daily sums (\(seeded.orders) orders) in "
                    + "\(String(format: "%.1f", (ContinuousClock.now - started).inSeconds)) s")
            try await BenchmarkServer.withHTTPClient(connections: 1) { http in
                let key = ("Authorization", "Bearer \(credentials.apiKey)")
                let cases: [(name: String, path: String, header: (String, String), shows: String)] = [
                    ("GET /healthz (baseline)", "/healthz", key, "ok"),
                    ("insights: 30 days, daily", "/api/v1/insights", key, "\"interval\":\"day\""),
                    ("insights: 48 hours, hourly", "/api/v1/insights?interval=hour", key, "\"interval\":\"hour\""),
                    (
                        "insights: 366 days, daily",
                        "/api/v1/insights?from=\(DateTimeFormat.formatRFC3339(Date().addingTimeInterval(-365 * 86_400)))", key, "series"
                    ),
                ]
                var results: [(String, Latencies)] = []
                for entry in cases {
                    results.append(
                        (
                            entry.name,
                            try await Latencies.measure(http, url: base + entry.path, header: entry.header, shows: entry.shows, samples: samples)
                        ))
                }
                Latencies.report(results, subject: "insights")
            }
        }
    }

    /// A year of hourly and daily roll-ups up to the current hour for each merchant's order type, the orders shared out
    /// evenly: the table as the merchants' causes would have filled it.
    private func seed(_ store: SQLOrderStore, credentials: DevelopmentCredentials) async throws -> (rows: Int, orders: Int64) {
        let hours = 8_760
        let hour: Int64 = 3_600_000
        let start = (Int64(Date().timeIntervalSince1970 * 1000) / hour + 1) * hour - Int64(hours) * hour
        var seeded: Int64 = 0
        for index in 0..<merchants {
            var merchantID = credentials.merchantID
            var orderType = credentials.orderTypeIdentifier
            if index > 0 {
                merchantID = try await store.createMerchant(name: "Other shop \(index)").id
                orderType = "order.com.example.insights\(index)"
                try await store.upsertOrderType(
                    OrderTypeRecord(orderTypeIdentifier: orderType, merchantID: merchantID, identity: .directory(path: "/nonexistent")))
            }
            seeded += try await store.insertGeneratedInsightCounts(
                merchantID: merchantID, orderTypeIdentifier: orderType, start: start, hours: hours,
                orders: orders / merchants + (index < orders % merchants ? 1 : 0))
        }
        return (merchants * hours * InsightMetric.allCases.count, seeded)
    }
}
