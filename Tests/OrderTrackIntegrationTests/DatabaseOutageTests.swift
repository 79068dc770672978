import Foundation
import HTTPTypes
import OrderModel
import SQLKit
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderPersistence

/// PostgreSQL goes away for a while: every call gets 503 with Retry-After, promptly; nothing crashes, and service
/// resumes by itself.
///
/// Device calls too, even for an order kept in memory and while the instance's listener still hears changes: an
/// announcement can come after the change's push reached a device, so a kept order is served only once the database
/// confirmed its version (a device told of a change and answered with the old package would hold the change's tag and
/// never ask again).
@Suite(.serialized) struct DatabaseOutageTests {
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func devicesGet503WithRetryAfterWhileTheDatabaseIsUnreachableAndServiceResumesByItself() async throws {
        // A database of its own, so that refusing connections to it disturbs nothing else.
        let admin = try await SQLOrderStore.postgres(PostgresStoreConfiguration(url: try TestDatabase.freshPostgresURL()), masterKey: testMasterKey)
        let name = "ot_outage_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        @Sendable func sql(_ statement: SQLQueryString) async throws {
            try await admin.read("administer the outage database") { try await $0.raw(statement).run() }
        }
        try await sql("CREATE DATABASE \(ident: name)")
        let baseURL = try #require(TestDatabase.postgresURL)
        var components = try #require(URLComponents(string: baseURL))
        components.path = "/" + name
        let databaseURL = try #require(components.string)
        let server = try TestServer(database: databaseURL)
        defer { server.remove() }

        try await server.run { client in
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            let details = try #require(created.json["orderDetails"])
            let type = try #require(details["orderTypeIdentifier"]?.stringValue)
            let id = try #require(details["orderIdentifier"]?.stringValue)
            let token = try #require(details["authenticationToken"]?.stringValue)
            let orderPath = "/wallet/v1/orders/\(type)/\(id)"
            let listPath = "/wallet/v1/devices/device-1/registrations/\(type)"
            let registration = "/wallet/v1/devices/device-1/registrations/\(type)/\(id)"
            #expect(
                try await client.device(.post, registration, token: token, json: ["pushToken": .string(String(repeating: "ab", count: 32))]).status
                    == .created)
            // The order is kept in memory: its next fetch is a hit, once the database confirmed the version.
            #expect(try await client.device(.get, orderPath, token: token).status == .ok)
            let orderHits = try await client.metric(ChangeFeed.orderHits)
            #expect(try await client.device(.get, orderPath, token: token).status == .ok)
            #expect(try await client.metric(ChangeFeed.orderHits) > orderHits)
            #expect(try await client.device(.get, listPath, token: nil).status == .ok)

            func expectUnavailable(_ reply: Client.Reply, _ what: String) {
                #expect(reply.status == .serviceUnavailable, "\(what): \(reply.status) \(reply.text)")
                #expect(reply.headers[.retryAfter] == "5", "\(what)")
                #expect(reply.json["error"]?["code"] == "database_unavailable", "\(what)")
            }

            // The database refuses new connections and drops the pool's; the listener's connection stays.
            try await sql("ALTER DATABASE \(ident: name) ALLOW_CONNECTIONS false")
            try await sql(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                WHERE datname = \(bind: name) AND application_name <> 'ordertrack-listener'
                """)
            let started = ContinuousClock.now
            // The listener still hears changes, yet the kept order is not served unconfirmed.
            #expect(try await client.metric(ChangeFeed.following) == 1)
            for (method, path) in [(HTTPRequest.Method.get, orderPath), (.get, listPath), (.delete, registration)] {
                expectUnavailable(try await client.device(method, path, token: token), "\(method) \(path)")
            }
            expectUnavailable(try await client.merchant(.get, "/api/v1/orders"), "GET /api/v1/orders")

            // The listener's connection goes too: the instance notices, and calls still fail promptly.
            let interruptions = try await client.metric(ChangeFeed.interruptions)
            try await sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(bind: name)")
            try await Poll.expect(within: .seconds(30)) {
                try await client.metric(ChangeFeed.interruptions) > interruptions
            }
            #expect(try await client.metric(ChangeFeed.following) == 0)
            for (method, path) in [(HTTPRequest.Method.get, orderPath), (.get, listPath), (.delete, registration)] {
                expectUnavailable(try await client.device(method, path, token: token), "\(method) \(path)")
            }
            expectUnavailable(try await client.merchant(.get, "/api/v1/orders"), "GET /api/v1/orders")
            #expect(ContinuousClock.now - started < .seconds(20), "answers come promptly, not after a long wait for a connection")

            // Connections are allowed again: the very next requests succeed, with nothing lost.
            try await sql("ALTER DATABASE \(ident: name) ALLOW_CONNECTIONS true")
            #expect(try await client.device(.get, orderPath, token: token).status == .ok)
            let relisted = try await client.device(.get, listPath, token: nil)
            #expect(relisted.json["orderIdentifiers"] == .array([.string(id)]))
        }
        try await sql("DROP DATABASE \(ident: name) WITH (FORCE)")
        try await admin.shutdown()
    }
}
