import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import ServerTestSupport
import TestSupport
import Testing

/// The order page's transcript lists, newest first, each change with its author, each device registration and
/// package fetch (written behind), and each push attempt.
@Suite struct DashboardTranscriptTests {
    @Test func theTranscriptShowsEveryEventNewestFirst() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder(number: "T-1").details
            let order = try await client.merchant(.get, "/api/v1/orders/\(type)/\(id)")
            let token = try #require(order.json["order"]?["authenticationToken"]?.stringValue)
            let pushToken = String(repeating: "5e", count: 32)
            let registered = try await client.device(
                .post, "/wallet/v1/devices/devicelibrary0001/registrations/\(type)/\(id)", token: token, json: ["pushToken": .string(pushToken)])
            #expect(registered.status == .created)
            let fetched = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: token)
            #expect(fetched.status == .ok)
            let lastModified = try #require(fetched.headers[.lastModified])
            let checked = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: token, headers: [.ifModifiedSince: lastModified])
            #expect(checked.status == .notModified)
            // Fetches reach the store within a second (written behind); the update comes after them.
            try await Self.waitFor(client, type: type, id: id) {
                try await $0.orderActivity(orderTypeIdentifier: type, orderIdentifier: id, limit: 5).count == 4
            }

            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let updated = try await client.call(
                .patch, "/dashboard/api/orders/\(type)/\(id)",
                headers: [.cookie: browser.cookie, .contentType: "application/json", DashboardTests.csrfHeader: browser.csrfToken],
                body: Array(#"{"status": "completed"}"#.utf8))
            #expect(updated.status == .ok)

            let page = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: browser.cookie])
            let transcript = try #require(page.text.range(of: #"aria-label="Transcript"(?s:.)*?</section>"#, options: .regularExpression))
            let lines = page.text[transcript].components(separatedBy: "<li>").dropFirst().map { line in
                line.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
                    .replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression).trimmingCharacters(in: .whitespaces)
            }
            let expected = [
                "Updated Order updated to version 2 by dashboard from 127.0.0.1 · changed status",
                "Checked A device checked for changes: it has version 1 (304)",
                "Fetched A device fetched version 1 (200)",
                "Registered Device deviceli… registered for updates",
                "Created Order created, version 1 by secret key (key_",
            ]
            // The update's push may already be in the transcript above it (the push goes to a closed port here).
            let events = lines.filter { !$0.contains("Push to device") }
            #expect(events.count == expected.count, "\(lines)")
            for (line, start) in zip(events, expected) { #expect(line.hasPrefix(start), "\(line)") }
            #expect(!page.text.contains(pushToken) && !page.text.contains("devicelibrary0001"), "no token, no full device identifier")
        }
    }

    static func waitFor(
        _ client: Client, type: String, id: String, _ condition: (any OrderStore) async throws -> Bool
    ) async throws {
        if try await !Poll.until(timeout: .seconds(30), every: .milliseconds(100), { try await condition(client.store) }) {
            Issue.record("the activity did not arrive within 30 s")
        }
    }
}
