import ExternalTools
import Foundation
import HTTPTypes
import OrderModel
import SQLKit
import Testing

@testable import OrderPersistence

/// PostgreSQL goes away for a while: devices get 503 with Retry-After, nothing crashes, and service resumes by itself.
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
        let server = try TestServer(database: try #require(components.string))
        defer { server.remove() }

        try await server.run { client in
            let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
            let details = try #require(created.json["orderDetails"])
            let type = try #require(details["orderTypeIdentifier"]?.stringValue)
            let id = try #require(details["orderIdentifier"]?.stringValue)
            let token = try #require(details["authenticationToken"]?.stringValue)
            let orderPath = "/wallet/v1/orders/\(type)/\(id)"
            let registration = "/wallet/v1/devices/device-1/registrations/\(type)/\(id)"
            #expect(
                try await client.device(.post, registration, token: token, json: ["pushToken": .string(String(repeating: "ab", count: 32))]).status
                    == .created)
            #expect(try await client.device(.get, orderPath, token: token).status == .ok)

            // The database refuses connections and drops the open ones.
            try await sql("ALTER DATABASE \(ident: name) ALLOW_CONNECTIONS false")
            try await sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(bind: name)")
            let started = ContinuousClock.now
            for (method, path) in [
                (HTTPRequest.Method.get, orderPath), (.get, "/wallet/v1/devices/device-1/registrations/\(type)"), (.delete, registration),
            ] {
                let reply = try await client.device(method, path, token: token)
                #expect(reply.status == .serviceUnavailable, "\(method) \(path): \(reply.status) \(reply.text)")
                #expect(reply.headers[.retryAfter] == "5")
                #expect(reply.json["error"]?["code"] == "database_unavailable")
            }
            let merchant = try await client.merchant(.get, "/api/v1/orders")
            #expect(merchant.status == .serviceUnavailable)
            #expect(ContinuousClock.now - started < .seconds(10), "answers come promptly, not after a long wait for a connection")

            // Connections are allowed again: the very next requests succeed, with nothing lost.
            try await sql("ALTER DATABASE \(ident: name) ALLOW_CONNECTIONS true")
            #expect(try await client.device(.get, orderPath, token: token).status == .ok)
            let listed = try await client.device(.get, "/wallet/v1/devices/device-1/registrations/\(type)", token: nil)
            #expect(listed.json["orderIdentifiers"] == .array([.string(id)]))
        }
        try await sql("DROP DATABASE \(ident: name) WITH (FORCE)")
        try await admin.shutdown()
    }
}
