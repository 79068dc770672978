import Foundation
import OrderModel
import OrderPersistence
import ServerTestSupport
import Testing

@testable import OrderTrackServer

/// Audit findings checked on the server's internals: L1 (constant-time comparison), L2 (dot-segment identifiers), M7
/// (store faults answered with their status).
@Suite struct AuditUnitTests {
    @Test func m7_storeFaultsAreAnsweredWithTheirStatus() {
        let busy = APIError(answering: OrderStoreError.busy(operation: "create an order", reason: "SQLite: database is locked"))
        #expect(busy.status.code == 503 && busy.code == "database_busy" && busy.headers[.retryAfter] == "1")
        let down = APIError(answering: OrderStoreError.unavailable(operation: "read an order", reason: "connection refused"))
        #expect(down.status.code == 503 && down.code == "database_unavailable" && down.headers[.retryAfter] == "5")
        let full = APIError(answering: OrderStoreError.storageFull(operation: "create an order", reason: "SQLite: database or disk is full"))
        #expect(full.status.code == 507 && full.code == "insufficient_storage")
        // Other faults reveal nothing of their cause to the caller.
        let other = APIError(answering: OrderStoreError.database(operation: "create an order", reason: "secret detail"))
        #expect(other.status.code == 500 && other.code == "internal_error" && !other.message.contains("secret detail"))
    }

    @Test func l1_secretsOfLengthsAMultipleOf256ApartNeverCompareEqual() {
        let token = "Rj7fgMRAhNsCYsK4M4-8GNv9Za-TKgRa"
        #expect(Secrets.constantTimeEquals(token, token))
        #expect(!Secrets.constantTimeEquals(token, token + String(repeating: "\u{0}", count: 256)))
        #expect(!Secrets.constantTimeEquals(token + String(repeating: "\u{0}", count: 512), token))
        #expect(!Secrets.constantTimeEquals("", String(repeating: "\u{0}", count: 256)))
        #expect(!Secrets.constantTimeEquals(token, String(token.dropLast()) + "b"))
    }

    /// Keys are stored and looked up by this form: a change to it would orphan every stored key.
    @Test func secretsAreHashedAsLowerCaseHexSHA256() {
        #expect(Secrets.sha256Hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // Drawn eight bytes at a time, cut to the length asked: 18 bytes are 24 base64url characters.
        #expect(Secrets.randomToken(bytes: 18).utf8.count == 24 && Secrets.randomToken(bytes: 18) != Secrets.randomToken(bytes: 18))
    }

    @Test func l2_dotSegmentsAreNotIdentifiers() async throws {
        #expect(!Identifiers.isValid("."))
        #expect(!Identifiers.isValid(".."))
        #expect(Identifiers.isValid("..."))
        #expect(Identifiers.isValid(".hidden"))
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            for identifier in [".", ".."] {
                var content = SampleContent.order
                content["orderIdentifier"] = .string(identifier)
                let created = try await client.merchant(.post, "/api/v1/orders", json: content)
                #expect(created.status == .badRequest)
                #expect(created.json["error"]?["param"] == "orderIdentifier")
                #expect(created.json["error"]?["message"]?.stringValue?.contains("other than . and ..") == true)
            }
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.isEmpty == true, "nothing was created")
        }
    }

    @Test func l3_anOrderDatedFarInTheFutureIsRefusedSoItCanAlwaysBeUpdated() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            for field in ["createdAt", "updatedAt"] {
                var content = SampleContent.order
                content["createdAt"] = "2026-01-01T00:00:00Z"
                content[field] = "9999-12-31T23:59:59Z"
                let created = try await client.merchant(.post, "/api/v1/orders", json: content)
                #expect(created.status == .unprocessableContent)
                #expect(created.json["error"]?["param"] == .string(field))
                #expect(created.json["error"]?["message"]?.stringValue?.contains("more than an hour after the server's clock") == true)
            }
            // Within the hour is accepted, and the order can still be updated.
            var content = SampleContent.order
            content["updatedAt"] = .string(DateTimeFormat.formatRFC3339(Date().addingTimeInterval(600)))
            content["createdAt"] = content["updatedAt"]
            let created = try await client.merchant(.post, "/api/v1/orders", json: content)
            #expect(created.status == .created, "\(created.text)")
            let details = try #require(created.json["orderDetails"])
            let path = "/api/v1/orders/\(details["orderTypeIdentifier"]!.stringValue!)/\(details["orderIdentifier"]!.stringValue!)"
            #expect(try await client.merchant(.patch, path, json: ["statusDescription": "Packed"]).status == .ok)
        }
    }
}
