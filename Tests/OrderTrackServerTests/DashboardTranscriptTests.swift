import Foundation
import HTTPTypes
import Logging
import OrderModel
import OrderPersistence
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackDashboard
@testable import OrderTrackServer

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

    /// Fetches of one version answered alike, written together, are one line with their number; the insights still
    /// count each fetch.
    @Test func repeatedFetchesAreOneEntryWithTheirNumber() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let (type, id, _) = try await client.createOrder(number: "T-2").details
            let first = try #require(try await client.store.order(type: type, id: id))
            // A recorder of the test's own that writes only when told: the server's writes about every second.
            let recorder = FetchActivityRecorder(
                store: client.store, interval: .seconds(3600), logger: Logger(label: "test"),
                clock: ServerClock(date: Date.init, waits: ContinuousClock()))
            for _ in 0..<3 { recorder.fetched(first, status: 200) }
            for _ in 0..<2 { recorder.fetched(first, status: 304) }
            var second = first
            second.version += 1
            recorder.fetched(second, status: 200)
            #expect(recorder.backlog == (pending: 3, dropped: 0))
            await recorder.flush()
            recorder.fetched(first, status: 200)
            await recorder.flush()

            let fetches = try await client.store.orderActivity(orderTypeIdentifier: type, orderIdentifier: id, limit: 10).filter {
                $0.kind == .fetched
            }
            #expect(fetches.map(\.occurrences) == [1, 1, 2, 3], "newest first: the later write's fetch alone")
            #expect(fetches.map(\.version) == [first.version, second.version, first.version, first.version])
            #expect(fetches.map(\.status) == [200, 200, 304, 200])
            #expect(
                fetches.map { TranscriptEntry($0).summary } == [
                    "A device fetched version 1 (200)", "A device fetched version 2 (200)",
                    "Devices checked for changes 2 times: they have version 1 (304)", "Devices fetched version 1 3 times (200)",
                ])
            let insights = try await client.store.insightCounts(
                merchantID: client.credentials.merchantID, orderTypeIdentifier: type, from: Date().addingTimeInterval(-86_400),
                to: Date().addingTimeInterval(86_400), granularity: .day)
            #expect(insights.buckets.values.map { $0[.packageFetches] ?? 0 }.reduce(0, +) == 7, "every fetch counts")
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
