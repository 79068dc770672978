import Foundation
import OrderTrackBenchmarks
import SQLKit
import TestSupport
import Testing

@testable import OrderPersistence

/// The dashboard's list queries at scale: newest first walks an index without sorting, a status filter walks its own
/// index however rare the status, and a search looks up order number and identifier in their indexes.
@Suite struct DashboardQueryPlanTests {
    @Test func theDashboardListQueriesUseTheirIndexes() async throws {
        try await withStore { store, _ in
            let fixture = try await Fixture.make(store)
            let other = try await store.createMerchant(name: "Other")
            try await store.upsertOrderType(
                OrderTypeRecord(orderTypeIdentifier: "order.com.example.other", merchantID: other.id, identity: .directory(path: "/nonexistent")))
            let document = Array(#"{"status":"open"}"#.utf8)
            for (merchant, type) in [(other.id, "order.com.example.other"), (fixture.merchant.id, fixture.orderType)] {
                for (index, status) in ["completed", "open", "completed", "cancelled"].enumerated() {
                    try await BenchmarkSeed(
                        merchantID: merchant, orderTypeIdentifier: type, orderCount: 5_000, registrationCount: 0, document: document, status: status,
                        authenticationTokenPrefix: "token-\(UUID().uuidString)-", orderIdentifierPrefix: "o\(index)-", orderNumberPrefix: "N\(index)-"
                    ).insert(into: store)
                }
            }
            let found = try await store.recentOrders(
                merchantID: fixture.merchant.id, orderTypeIdentifier: nil, status: nil, search: "N2-17", before: nil, limit: 25)
            #expect(found.orders.map(\.orderIdentifier) == ["o2-17"], "the merchant's own order, not the other's")

            let cases: [(name: String, status: String?, search: String?, indexes: [String], sorts: Bool)] = [
                ("newest first", nil, nil, ["orders_merchant_created"], false),
                ("status", "open", nil, ["orders_merchant_status_created"], false),
                ("search", nil, "o1-42", ["orders_merchant_order_number", "orders_merchant_identifier"], true),
                ("search with status", "open", "N1-42", ["orders_merchant_order_number", "orders_merchant_identifier"], true),
            ]
            for entry in cases {
                let plan = try await store.plan(analyze: true) { db in
                    SQLOrderStore.recentOrdersQuery(
                        db, merchantID: fixture.merchant.id, orderTypeIdentifier: nil, status: entry.status, search: entry.search, before: 12_345,
                        limit: 26
                    ).select
                }
                let text = plan.joined(separator: "\n")
                for index in entry.indexes { #expect(text.contains(index), "\(entry.name): \(index) in plan:\n\(text)") }
                #expect(!text.contains("Seq Scan") && !plan.contains { $0.hasPrefix("SCAN") }, "\(entry.name): no table scan:\n\(text)")
                if !entry.sorts {
                    #expect(!text.contains("TEMP B-TREE") && !text.contains("Sort"), "\(entry.name): the index gives the order:\n\(text)")
                }
            }
            // The rows' push log (the list's revision) and device counts: lookups of the listed rows, not a walk of the
            // merchant's orders or of a table.
            let listed = (0..<25).map { OrderKey(orderTypeIdentifier: fixture.orderType, orderIdentifier: "o1-\($0 * 7)") }
            for (name, query) in [
                ("push log", { db in SQLOrderStore.latestPushLogQuery(db, merchantID: fixture.merchant.id, of: listed) }),
                ("devices", { db in SQLOrderStore.registrationCountsQuery(db, of: listed) }),
            ] as [(String, (any SQLDatabase) -> SQLSelectBuilder)] {
                let plan = try await store.plan { query($0).select }
                let text = plan.joined(separator: "\n")
                // PostgreSQL plans by statistics and rightly reads the test's empty push log and registrations whole.
                #expect(
                    !text.contains("orders_merchant") && !text.contains("Seq Scan on orders") && !plan.contains { $0.hasPrefix("SCAN") },
                    "\(name):\n\(text)")
            }
        }
    }
}
