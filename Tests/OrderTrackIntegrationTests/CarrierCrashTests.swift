import AsyncHTTPClient
import CarrierTracking
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import OrderModel
import OrderPersistence
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// Carrier events survive a kill of the server that applies them: every event waiting in the inbox is applied after a
/// restart, each order ends at its latest scan, and every device hears of it.
@Suite(.serialized) struct CarrierCrashTests {
    static let orders = 300

    /// The merchant API call of the push crash test: one way to call a server process from these suites.
    func call(_ http: HTTPClient, _ method: HTTPMethod, _ url: String, apiKey: String, body: JSONValue? = nil) async throws -> JSONValue {
        try await CrashRecoveryTests().call(http, method, url, apiKey: apiKey, body: body)
    }

    func openStore(_ dataDirectory: URL, _ database: String?) async throws -> SQLOrderStore {
        try #require(
            try await OrderTrackApplication.openStore(
                configuration: developmentConfiguration(dataDirectory: dataDirectory.path, databaseURL: database),
                logger: Logger(label: "carrier-crash")
            ) as? SQLOrderStore)
    }

    @Test func killedWhileApplyingEveryWaitingEventIsAppliedAfterARestart() async throws {
        let apns = try await LocalAPNs.start()
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ordertrack-carrier-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let database = try TestDatabase.storeURL()
        let http = HTTPClient.shared

        // Orders with tracking numbers, made through the API so that their fulfillments are tracked.
        var server = try ServerProcess(dataDirectory: dataDirectory, database: database, apns: apns)
        let credentials = try JSONDecoder().decode(
            DevelopmentCredentials.self, from: Data(contentsOf: dataDirectory.appendingPathComponent("dev-credentials.json")))
        var orders: [(type: String, id: String, tracking: String)] = []
        for index in 0..<Self.orders {
            var content = SampleContent.order
            let tracking = "CRASH\(String(format: "%06d", index))"
            content["fulfillments"] = [
                ["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing", "trackingNumber": .string(tracking)]
            ]
            let created = try await call(http, .POST, "http://127.0.0.1:\(server.port)/api/v1/orders", apiKey: credentials.apiKey, body: content)
            orders.append(
                (
                    try #require(created["orderDetails"]?["orderTypeIdentifier"]?.stringValue),
                    try #require(created["orderDetails"]?["orderIdentifier"]?.stringValue), tracking
                ))
        }
        await server.stop()

        // While the server is down: a device per order, and two scans per parcel waiting in the inbox, the later one
        // delivered first.
        let store = try await openStore(dataDirectory, database)
        try await store.insertRegistrations(
            orders.enumerated().map { index, order in
                Registration(
                    deviceLibraryIdentifier: "device-\(index)", pushToken: String(format: "%064x", index + 1), orderTypeIdentifier: order.type,
                    orderIdentifier: order.id, registeredAt: Date())
            })
        let connection = "cc_crash"
        try await store.addCarrierConnection(
            CarrierConnectionRecord(id: connection, merchantID: credentials.merchantID, provider: "generic", secret: "secret", createdAt: Date()))
        let now = Date()
        for order in orders {
            for (status, age) in [("outForDelivery", 60.0), ("onTheWay", 600.0)] {
                let body: JSONValue = [
                    "id": .string("\(order.tracking)-\(status)"), "trackingNumber": .string(order.tracking), "carrier": "dhl",
                    "status": .string(status),
                    "occurredAt": .string(DateTimeFormat.formatRFC3339(now.addingTimeInterval(-age))),
                ]
                guard
                    case .event(let event) = try CarrierWebhookParser.parse(
                        body.serialized(), provider: .generic, headers: CarrierRequestHeaders([:]))
                else { throw CarrierWebhookError(.malformedBody, "not an event") }
                _ = try await store.receiveCarrierEvent(IncomingCarrierEvent(event, connectionID: connection))
            }
        }
        try await store.shutdown()

        // The worker starts on them; kill it part way.
        server = try ServerProcess(dataDirectory: dataDirectory, database: database, apns: apns)
        try await Poll.until(timeout: .seconds(120), every: .milliseconds(2)) { apns.server.count >= 20 }
        await server.kill()
        let beforeCrash = Set(apns.server.pushes().map(\.deviceToken)).count
        #expect(beforeCrash > 0 && beforeCrash < Self.orders, "the kill must land while events are applied (\(beforeCrash) devices pushed)")

        // After a restart every parcel is out for delivery and every device was pushed; no event is left behind. A
        // parcel's scans apply in the order they happened, so a device pushed says only that its earlier scan was
        // applied (the last parcels' later scans may still be under way), and on PostgreSQL an event the killed
        // instance had claimed waits for its lease to run out: the poll waits for the orders themselves.
        server = try ServerProcess(dataDirectory: dataDirectory, database: database, apns: apns)
        var notDelivered: [String] = []
        try await Poll.until(timeout: .seconds(300), every: .seconds(1)) {
            guard Set(apns.server.pushes().map(\.deviceToken)).count >= Self.orders else { return false }
            notDelivered = []
            for order in orders {
                let current = try await call(
                    http, .GET, "http://127.0.0.1:\(server.port)/api/v1/orders/\(order.type)/\(order.id)", apiKey: credentials.apiKey)
                let document = current["order"] ?? current
                if document["fulfillments"]?.arrayValue?.first?["status"] != "outForDelivery" { notDelivered.append(order.id) }
            }
            return notDelivered.isEmpty
        }
        await server.stop()
        #expect(notDelivered.isEmpty, "\(notDelivered.count) of \(Self.orders) orders are not at their latest scan")
        #expect(Set(apns.server.pushes().map(\.deviceToken)).count == Self.orders)

        let after = try await openStore(dataDirectory, database)
        let events = try await after.recentCarrierEvents(merchantID: credentials.merchantID, limit: 2 * Self.orders)
        try await after.shutdown()
        #expect(events.count == 2 * Self.orders)
        let states = Dictionary(grouping: events, by: \.state).mapValues(\.count)
        // The later scan applied; the earlier one, however the kill fell, either moved nothing back or was ignored.
        #expect(states[.pending] == nil && states[.failed] == nil && states[.unmatched] == nil, "\(states)")
        try await apns.stop()
    }
}
