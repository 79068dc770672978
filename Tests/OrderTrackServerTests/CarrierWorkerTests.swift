import CarrierTracking
import Foundation
import OrderModel
import OrderPersistence
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackServer

/// The carrier event worker, from the inbox to the order, its devices and its audit trail: events are put into the
/// inbox as the webhook route stores them (parsed from the generic format), so these tests cover what happens after
/// the signature was checked.
@Suite(.serialized)
struct CarrierWorkerTests {
    static let pushToken = String(repeating: "cd", count: 32)

    /// A server that checks the inbox often: these tests store events behind the worker's back, without its wake-up.
    static func server(push: PushConfiguration = PushConfiguration(endpoint: URL(string: "https://127.0.0.1:9")!)) throws -> TestServer {
        var server = try TestServer(push: push)
        server.carriers.pollInterval = .milliseconds(50)
        return server
    }

    /// A shipping order whose one fulfillment has `trackingNumber` (if any) and `carrier`.
    static func order(number: String = SampleContent.uniqueNumber(), trackingNumber: String?, carrier: String? = "dhl") -> JSONValue {
        var order = SampleContent.order(number: number)
        var fulfillment: [String: JSONValue] = ["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"]
        if let trackingNumber { fulfillment["trackingNumber"] = .string(trackingNumber) }
        if let carrier { fulfillment["carrier"] = .string(carrier) }
        order["fulfillments"] = [.object(fulfillment)]
        return order
    }

    /// A generic-format event as a 3PL sends it.
    static func event(
        id: String = UUID().uuidString, trackingNumber: String, status: String, at occurredAt: Date, carrier: String = "dhl",
        extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(id), "trackingNumber": .string(trackingNumber), "carrier": .string(carrier), "status": .string(status),
            "occurredAt": .string(DateTimeFormat.formatRFC3339(occurredAt)),
        ]
        members.merge(extra) { $1 }
        return .object(members)
    }

    /// Makes a generic connection for the merchant, as the API would.
    static func connect(_ client: Client, merchantID: String) async throws -> String {
        let id = "cc_test_\(UUID().uuidString.prefix(8).lowercased())"
        try await client.store.addCarrierConnection(
            CarrierConnectionRecord(id: id, merchantID: merchantID, provider: "generic", secret: "secret", createdAt: Date()))
        return id
    }

    /// Stores the event in the inbox as the webhook route does after verifying it.
    @discardableResult
    static func deliver(_ client: Client, connection: String, _ event: JSONValue) async throws -> CarrierEventReceipt {
        guard case .event(let parsed) = try CarrierWebhookParser.parse(event.serialized(), provider: .generic, headers: CarrierRequestHeaders([:]))
        else { throw CarrierWebhookError(.malformedBody, "not an event") }
        return try await client.store.receiveCarrierEvent(IncomingCarrierEvent(parsed, connectionID: connection))
    }

    /// The inbox row once the worker finished it.
    static func finished(_ client: Client, merchantID: String, _ receipt: CarrierEventReceipt) async throws -> CarrierEventRecord {
        var record: CarrierEventRecord?
        try await Poll.until(timeout: .seconds(20)) {
            record = try await client.store.recentCarrierEvents(merchantID: merchantID, limit: 100).first { $0.id == receipt.id }
            return record.map { $0.state != .pending } ?? false
        }
        return try #require(record)
    }

    static func fulfillment(_ client: Client, _ order: CreatedTestOrder) async throws -> (version: String?, fulfillment: JSONValue, order: JSONValue)
    {
        let reply = try await client.merchant(.get, order.path)
        let document = reply.json["order"] ?? reply.json
        return (reply.headers[.eTag], try #require(document["fulfillments"]?.arrayValue?.first), document)
    }

    @Test func scansMoveTheFulfillmentForwardOnlyPushTheDeviceAndCompleteTheOrder() async throws {
        let apns = try await LocalAPNs.start()
        let server = try Self.server(push: apns.push())
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let order = try await client.createOrder(Self.order(trackingNumber: "LX123456789DE"))
            let registered = try await client.device(
                .post, "/wallet/v1/devices/dev-1/registrations/\(order.type)/\(order.id)", token: order.token,
                json: ["pushToken": .string(Self.pushToken)])
            #expect(registered.status == .created)
            let connection = try await Self.connect(client, merchantID: merchantID)
            let now = Date()

            // A scan, the number spelled as the carrier prints it: the fulfillment follows, the device is pushed.
            let estimate = DateTimeFormat.formatRFC3339(now.addingTimeInterval(2 * 86_400))
            let first = try await Self.deliver(
                client, connection: connection,
                Self.event(
                    trackingNumber: "lx 1234-56789de", status: "onTheWay", at: now.addingTimeInterval(-3600),
                    extra: ["estimatedDeliveryAt": .string(estimate)]))
            let applied = try await Self.finished(client, merchantID: merchantID, first)
            #expect(applied.state == .applied, "\(applied.outcome ?? "")")
            #expect(applied.outcome?.hasPrefix("processing → onTheWay") == true, "\(applied.outcome ?? "")")
            #expect(
                applied.match
                    == CarrierEventMatch(order: OrderKey(orderTypeIdentifier: order.type, orderIdentifier: order.id), fulfillmentIdentifier: "ship-1")
            )
            var (version, fulfillment, _) = try await Self.fulfillment(client, order)
            #expect(version == "\"2\"" && fulfillment["status"] == "onTheWay" && fulfillment["shippedAt"] != nil)
            #expect(fulfillment["estimatedDeliveryAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339) == DateTimeFormat.parseRFC3339(estimate))
            _ = try await apns.server.waitForPushes(count: 1, timeout: .seconds(20))
            // The audit trail names the provider and the connection.
            let history = try await client.merchant(.get, "\(order.path)/history").json["data"]?.arrayValue ?? []
            #expect(history.first?["keyName"] == "carrier:generic" && history.first?["keyId"] == .string(connection), "\(history.first ?? .null)")

            // A later scan that changes nothing Wallet shows: no version, no push.
            let quiet = try await Self.deliver(
                client, connection: connection,
                Self.event(
                    trackingNumber: "LX123456789DE", status: "onTheWay", at: now.addingTimeInterval(-1800),
                    extra: ["estimatedDeliveryAt": .string(estimate)]))
            let quietRecord = try await Self.finished(client, merchantID: merchantID, quiet)
            #expect(quietRecord.state == .applied && quietRecord.outcome?.hasPrefix("no change Wallet shows") == true, "\(quietRecord.outcome ?? "")")
            // Its scan is recorded with the finish, so a scan older than it is stale from now on.
            let key = OrderKey(orderTypeIdentifier: order.type, orderIdentifier: order.id)
            let lastScan = try #require(try await client.store.trackedFulfillments(order: key).first?.lastScanAt)
            #expect(abs(lastScan.timeIntervalSince(now.addingTimeInterval(-1800))) < 0.001, "\(lastScan)")

            // Delivered, then an older scan arriving late: it never takes the parcel back.
            let delivered = try await Self.deliver(
                client, connection: connection, Self.event(trackingNumber: "LX123456789DE", status: "delivered", at: now.addingTimeInterval(-60)))
            #expect(try await Self.finished(client, merchantID: merchantID, delivered).state == .applied)
            let late = try await Self.deliver(
                client, connection: connection,
                Self.event(trackingNumber: "LX123456789DE", status: "outForDelivery", at: now.addingTimeInterval(-900)))
            let lateRecord = try await Self.finished(client, merchantID: merchantID, late)
            #expect(lateRecord.state == .ignored && lateRecord.outcome?.hasPrefix("older than the last scan applied") == true)
            var document: JSONValue
            (version, fulfillment, document) = try await Self.fulfillment(client, order)
            // Every shipment delivered: the order is completed in the same version.
            #expect(version == "\"3\"" && fulfillment["status"] == "delivered" && document["status"] == "completed", "\(document)")
            #expect(fulfillment["deliveredAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339) != nil)
            _ = try await apns.server.waitForPushes(count: 2, timeout: .seconds(20))
            #expect(apns.server.pushes().count == 2, "the quiet and the late scan pushed nothing")
        }
        try await apns.stop()
    }

    @Test func anUnmatchedEventAppliesWhenAFulfillmentGetsItsTrackingNumber() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let connection = try await Self.connect(client, merchantID: merchantID)
            let receipt = try await Self.deliver(
                client, connection: connection, Self.event(trackingNumber: "1Z 999-AA1", status: "outForDelivery", at: Date(), carrier: "ups"))
            let waiting = try await Self.finished(client, merchantID: merchantID, receipt)
            #expect(waiting.state == .unmatched && waiting.outcome == "no shipping fulfillment has tracking number 1Z999AA1")

            // The merchant ships later, writing the number its own way; the waiting event then applies.
            let order = try await client.createOrder(Self.order(trackingNumber: nil, carrier: nil))
            let patched = try await client.merchant(
                .patch, order.path,
                json: ["fulfillments": [["fulfillmentIdentifier": "ship-1", "trackingNumber": "1z999aa1", "carrier": "UPS"]]])
            #expect(patched.status == .ok, "\(patched.text)")
            var record = waiting
            try await Poll.until(timeout: .seconds(20)) {
                record = try #require(try await client.store.recentCarrierEvents(merchantID: merchantID, limit: 10).first { $0.id == receipt.id })
                return record.state == .applied
            }
            #expect(record.state == .applied, "\(record.outcome ?? "")")
            let (version, fulfillment, _) = try await Self.fulfillment(client, order)
            #expect(version == "\"3\"" && fulfillment["status"] == "outForDelivery" && fulfillment["trackingNumber"] == "1z999aa1")
        }
    }

    /// A connection's own status map decides what its events move to; one that no longer reads (stored by an older
    /// release, or edited in the database) fails its events and changes nothing.
    @Test func eachConnectionsStatusMapAppliesToItsOwnEvents() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let mapped = try await client.createOrder(Self.order(trackingNumber: "JD014600006281230711"))
            let broken = try await client.createOrder(Self.order(trackingNumber: "JD014600006281230712"))
            let overriding = "cc_test_map_\(UUID().uuidString.prefix(8).lowercased())"
            let unreadable = "cc_test_bad_\(UUID().uuidString.prefix(8).lowercased())"
            try await client.store.addCarrierConnection(
                CarrierConnectionRecord(
                    id: overriding, merchantID: merchantID, provider: "generic", secret: "secret", statusMap: ["onTheWay": "outForDelivery"],
                    createdAt: Date()))
            try await client.store.addCarrierConnection(
                CarrierConnectionRecord(
                    id: unreadable, merchantID: merchantID, provider: "generic", secret: "secret", statusMap: ["onTheWay": "teleported"],
                    createdAt: Date()))
            let viaOverride = try await Self.deliver(
                client, connection: overriding, Self.event(trackingNumber: "JD014600006281230711", status: "onTheWay", at: Date()))
            let viaUnreadable = try await Self.deliver(
                client, connection: unreadable, Self.event(trackingNumber: "JD014600006281230712", status: "onTheWay", at: Date()))

            let applied = try await Self.finished(client, merchantID: merchantID, viaOverride)
            #expect(applied.state == .applied, "\(applied.outcome ?? "")")
            #expect(try await Self.fulfillment(client, mapped).fulfillment["status"] == "outForDelivery")
            let failed = try await Self.finished(client, merchantID: merchantID, viaUnreadable)
            #expect(failed.state == .failed && failed.outcome?.hasPrefix("the connection's status map is invalid") == true, "\(failed.outcome ?? "")")
            let (version, fulfillment, _) = try await Self.fulfillment(client, broken)
            #expect(version == "\"1\"" && fulfillment["status"] == "processing")
        }
    }

    @Test func anotherMerchantsConnectionNeverTouchesTheOrder() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let order = try await client.createOrder(Self.order(trackingNumber: "JD014600006281230701"))
            let (merchantB, _) = try await Administration(store: client.store).createMerchant(name: "Merchant B")
            let connectionB = try await Self.connect(client, merchantID: merchantB.id)
            let receipt = try await Self.deliver(
                client, connection: connectionB, Self.event(trackingNumber: "JD014600006281230701", status: "delivered", at: Date()))
            let record = try await Self.finished(client, merchantID: merchantB.id, receipt)
            #expect(record.state == .unmatched && record.merchantID == merchantB.id)
            let (version, fulfillment, _) = try await Self.fulfillment(client, order)
            #expect(version == "\"1\"" && fulfillment["status"] == "processing")
            #expect(try await client.store.recentCarrierEvents(merchantID: client.credentials.merchantID, limit: 10).isEmpty)
        }
    }

    @Test func theOrderReferenceFillsInTheOneUntrackedShipment() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let number = SampleContent.uniqueNumber()
            let order = try await client.createOrder(Self.order(number: number, trackingNumber: nil, carrier: nil))
            let connection = try await Self.connect(client, merchantID: merchantID)
            let receipt = try await Self.deliver(
                client, connection: connection,
                Self.event(trackingNumber: "00340434161094042557", status: "shipped", at: Date(), extra: ["orderIdentifier": .string(number)]))
            let record = try await Self.finished(client, merchantID: merchantID, receipt)
            #expect(record.state == .applied, "\(record.outcome ?? "")")
            let (_, fulfillment, _) = try await Self.fulfillment(client, order)
            #expect(fulfillment["trackingNumber"] == "00340434161094042557" && fulfillment["carrier"] == "DHL" && fulfillment["status"] == "shipped")
            // From then on the fulfillment is found by its number, and its last scan is kept.
            let tracked = try await client.store.trackedFulfillments(merchantID: merchantID, trackingNumber: "00340434161094042557")
            #expect(tracked.count == 1 && tracked.first?.lastScanAt != nil)
        }
    }

    @Test func aRecycledTrackingNumberGoesToTheShipmentOfTheEventsCarrier() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let ups = try await client.createOrder(Self.order(trackingNumber: "123456789012", carrier: "ups"))
            let fedex = try await client.createOrder(Self.order(trackingNumber: "123456789012", carrier: "FedEx"))
            let connection = try await Self.connect(client, merchantID: merchantID)
            let receipt = try await Self.deliver(
                client, connection: connection, Self.event(trackingNumber: "123456789012", status: "onTheWay", at: Date(), carrier: "fedex"))
            let record = try await Self.finished(client, merchantID: merchantID, receipt)
            #expect(record.state == .applied && record.match?.order.orderIdentifier == fedex.id, "\(record.outcome ?? "")")
            #expect(try await Self.fulfillment(client, ups).fulfillment["status"] == "processing")
            #expect(try await Self.fulfillment(client, fedex).fulfillment["status"] == "onTheWay")
            // A carrier neither order names: ambiguous, kept for the merchant to see.
            let unknown = try await Self.deliver(
                client, connection: connection, Self.event(trackingNumber: "123456789012", status: "delivered", at: Date(), carrier: "usps"))
            let ambiguous = try await Self.finished(client, merchantID: merchantID, unknown)
            #expect(ambiguous.state == .unmatched && ambiguous.outcome?.hasPrefix("2 shipping fulfillments") == true, "\(ambiguous.outcome ?? "")")
        }
    }
}
