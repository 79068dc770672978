import CarrierTestSupport
import CarrierTracking
import Crypto
import Foundation
import Testing
import WireFormats

/// Each provider's documented payload read into one event, the deliveries that are not tracking events, and bodies
/// that break the bounds.
@Suite struct ParserTests {
    @Test func afterShipTrackingUpdate() throws {
        let event = try Fixture.event("aftership-tracking-update", .aftership, headers: ["As-Webhook-Version": "2026-07"])
        #expect(event.idempotencyKey == "3c4a2f0e-6f4b-4b8e-9d55-2f3e1b7a9c01")
        #expect(event.trackingNumber == "9400111899223197428490")
        #expect(event.carrierCode == "usps")
        #expect(event.carrierName == "USPS")
        #expect(event.status == "OutForDelivery")
        #expect(event.subStatus == "OutForDelivery_001")
        // The latest checkpoint by time, not the last listed.
        #expect(event.occurredAt == date("2026-11-26T12:42:00Z"))
        #expect(event.estimatedDelivery == EstimatedDelivery(at: date("2026-11-26T18:00:00Z"), windowDuration: "PT4H"))
        #expect(event.trackingURL?.absoluteString == "https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111899223197428490")
        #expect(event.statusDescription == "Out for Delivery")
        #expect(event.orderReference == "#1042")
        #expect(event.webhookVersion == "2026-07")
    }

    @Test func aCarriersOwnTrackingPageEncodesEveryByteButASCIILettersAndDigits() {
        #expect(
            CarrierNames.trackingURL(carrierCode: "Stamps.com", trackingNumber: "9400 1118/é&x=1")?.absoluteString
                == "https://tools.usps.com/go/TrackConfirmAction?tLabels=9400%201118%2F%C3%A9%26x%3D1")
        #expect(CarrierNames.trackingURL(carrierCode: "dhl-express", trackingNumber: "JD014600006")?.host == "www.dhl.com")
        #expect(CarrierNames.trackingURL(carrierCode: "royal-mail", trackingNumber: "AB123456789GB") == nil)
    }

    @Test func afterShipEstimateRevisionWithoutCheckpointsUsesTheEventTime() throws {
        let event = try Fixture.event("aftership-edd-revise", .aftership)
        #expect(event.occurredAt == Date(timeIntervalSince1970: 1_795_626_000))
        #expect(event.estimatedDelivery == EstimatedDelivery(at: date("2026-11-28T00:00:00Z"), windowDuration: "PT24H"))
        #expect(event.carrierName == "UPS")
        // No courier link in the payload: UPS's own tracking page.
        #expect(event.trackingURL?.absoluteString == "https://www.ups.com/track?tracknum=1Z999AA10123456784")
        #expect(event.orderReference == "1043")
        #expect(event.webhookVersion == nil)
    }

    @Test func easyPostTrackerUpdated() throws {
        let event = try Fixture.event("easypost-tracker-updated", .easypost)
        #expect(event.idempotencyKey == "evt_5d5b3d4c8e1f4a2b9c7d6e5f4a3b2c1d")
        #expect(event.trackingNumber == "EZ4000000004")
        #expect(event.carrierName == "USPS")
        #expect(event.status == "delivered")
        #expect(event.subStatus == "arrived_at_destination")
        #expect(event.occurredAt == date("2026-11-26T18:14:00Z"))
        #expect(event.estimatedDelivery == EstimatedDelivery(at: date("2026-11-26T18:15:00Z")))
        #expect(event.trackingURL?.host == "track.easypost.com")
        #expect(event.statusDescription == "Arrived at destination")
        #expect(event.orderReference == "shp_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d")
    }

    @Test func shippoTrackUpdatedIsKeyedByTheBodyHash() throws {
        let body = try Fixture.bytes("shippo-track-updated")
        let event = try Fixture.event("shippo-track-updated", .shippo)
        #expect(event.idempotencyKey == "sha256:" + Hex.encode(SHA256.hash(data: body)))
        #expect(event.trackingNumber == "92055901755477000271990251")
        #expect(event.carrierName == "USPS")
        #expect(event.status == "TRANSIT")
        #expect(event.subStatus == "package_departed")
        #expect(event.occurredAt == date("2026-11-25T08:55:00Z"))
        #expect(event.estimatedDelivery?.at == date("2026-11-27T18:00:00Z"))
        #expect(event.statusDescription == "Package has departed from an intermediate facility")
        #expect(event.orderReference == "Order 1044")
    }

    @Test func shipEngineTrack() throws {
        let event = try Fixture.event("shipengine-track", .shipengine)
        #expect(event.idempotencyKey.hasPrefix("sha256:"))
        #expect(event.trackingNumber == "794698412345")
        // From the resource URL's carrier_code.
        #expect(event.carrierCode == "fedex")
        #expect(event.carrierName == "FedEx")
        #expect(event.status == "EX")
        #expect(event.subStatus == "ATTEMPTED_DELIVERY")
        #expect(event.occurredAt == date("2026-11-26T19:31:00Z"))
        #expect(event.estimatedDelivery?.at == date("2026-11-27T20:00:00Z"))
        #expect(event.statusDescription == "Customer not available or business closed")
        #expect(event.trackingURL?.absoluteString == "https://www.fedex.com/fedextrack/?trknbr=794698412345")
    }

    @Test func shipEngineWithoutEventsTakesTheSignedTime() throws {
        let body = Array(#"{"resource_type":"API_TRACK","data":{"tracking_number":"1","status_code":"IT"}}"#.utf8)
        let headers = CarrierRequestHeaders(["x-shipengine-timestamp": "2026-11-26T19:35:00Z"])
        guard case .event(let event) = try CarrierWebhookParser.parse(body, provider: .shipengine, headers: headers) else {
            Issue.record("not an event")
            return
        }
        #expect(event.occurredAt == date("2026-11-26T19:35:00Z"))
        #expect(event.carrierCode == nil)
        let error = try #require(throws: CarrierWebhookError.self) {
            try CarrierWebhookParser.parse(body, provider: .shipengine, headers: CarrierRequestHeaders([:]))
        }
        #expect(error.code == .missingField)
    }

    @Test func genericEvent() throws {
        let event = try Fixture.event("generic-event", .generic)
        #expect(event.idempotencyKey == "evt-3pl-000123")
        #expect(event.trackingNumber == "LX123456789DE")
        #expect(event.carrierName == "DHL")
        #expect(event.status == "onTheWay")
        #expect(event.occurredAt == date("2026-11-25T06:45:00Z"))
        #expect(event.estimatedDelivery == EstimatedDelivery(at: date("2026-11-27T08:00:00Z"), windowDuration: "PT4H"))
        #expect(event.trackingURL?.host == "www.dhl.com")
        #expect(event.statusDescription == "Left the hub in Leipzig")
        #expect(event.orderReference == "order-1045")
    }

    @Test(arguments: [
        ("aftership-pending-time", CarrierProvider.aftership), ("shippo-transaction-created", .shippo),
    ])
    func deliveriesThatAreNotTrackingEventsAreIgnored(_ name: String, _ provider: CarrierProvider) throws {
        let result = try CarrierWebhookParser.parse(try Fixture.bytes(name), provider: provider, headers: CarrierRequestHeaders([:]))
        guard case .ignored(let reason) = result else {
            Issue.record("expected ignored, got \(result)")
            return
        }
        #expect(reason.contains("not a tracking"))
        let other = Array(#"{"id":"evt_1","description":"batch.created","result":{}}"#.utf8)
        #expect(
            try CarrierWebhookParser.parse(other, provider: .easypost, headers: CarrierRequestHeaders([:]))
                == .ignored("EasyPost event \"batch.created\" is not a tracker event"))
    }

    /// Errors name the field and the rule.
    @Test(arguments: [
        (
            CarrierProvider.generic, #"{"trackingNumber":"1","carrier":"ups","status":"delivered","occurredAt":"2026-11-26T10:00:00Z"}"#,
            CarrierWebhookError.Code.missingField, "id"
        ),
        (.generic, #"{"id":"e","trackingNumber":"1","carrier":"ups","status":"delivered","occurredAt":"26/11/2026"}"#, .invalidField, "occurredAt"),
        (
            .generic, #"{"id":"e","trackingNumber":1,"carrier":"ups","status":"delivered","occurredAt":"2026-11-26T10:00:00Z"}"#, .invalidField,
            "trackingNumber"
        ),
        (
            .generic,
            #"{"id":"e","trackingNumber":"1","carrier":"ups","status":"delivered","occurredAt":"2026-11-26T10:00:00Z","trackingURL":"javascript:alert(1)"}"#,
            .invalidField, "trackingURL"
        ),
        (
            .generic,
            #"{"id":"e","trackingNumber":"1","carrier":"ups","status":"delivered","occurredAt":"2026-11-26T10:00:00Z","estimatedDeliveryWindowDuration":"PT4H"}"#,
            .missingField, "estimatedDeliveryAt"
        ),
        (
            .generic,
            #"{"id":"e","trackingNumber":"1","carrier":"ups","status":"delivered","occurredAt":"2026-11-26T10:00:00Z","estimatedDeliveryAt":"2026-11-27T10:00:00Z","estimatedDeliveryWindowDuration":"4 hours"}"#,
            .invalidField, "estimatedDeliveryWindowDuration"
        ),
        (
            .aftership,
            #"{"event":"tracking_update","event_id":"x","msg":{"tracking_number":"1","tag":"InTransit","checkpoints":[{"checkpoint_time":"soon"}]}}"#,
            .invalidField, "msg.checkpoints[0].checkpoint_time"
        ),
        (.aftership, #"{"event":"tracking_update","event_id":"x","msg":{"tag":"InTransit"}}"#, .missingField, "msg.tracking_number"),
        (.aftership, #"{"event":"tracking_update","event_id":"x","msg":"text"}"#, .invalidField, "msg"),
        (
            .easypost, #"{"id":"evt","description":"tracker.updated","result":{"tracking_code":"1","status":"in_transit"}}"#, .missingField,
            "created_at"
        ),
        (.shippo, #"{"event":"track_updated","data":{"tracking_number":"1","tracking_status":{"status":"TRANSIT"}}}"#, .missingField, "status_date"),
        (.shippo, #"[1,2]"#, .malformedBody, "JSON object"),
        (.easypost, #"{"id":"evt","description":"tracker.updated","#, .malformedBody, "invalid JSON"),
    ])
    func malformedEventsNameTheField(_ provider: CarrierProvider, _ body: String, _ code: CarrierWebhookError.Code, _ field: String) throws {
        let error = try #require(throws: CarrierWebhookError.self) {
            try CarrierWebhookParser.parse(Array(body.utf8), provider: provider, headers: CarrierRequestHeaders([:]))
        }
        #expect(error.code == code)
        #expect(error.message.contains(field), "\(error)")
        #expect(!error.isAuthenticationFailure)
    }

    @Test func oversizedDeepAndLongInputIsRefused() throws {
        let big = [UInt8](repeating: 0x20, count: CarrierWebhookParser.maximumBodySize + 1)
        #expect(
            throws: CarrierWebhookError(.bodyTooLarge, "the body is \(big.count) bytes; at most \(CarrierWebhookParser.maximumBodySize) are read")
        ) {
            try CarrierWebhookParser.parse(big, provider: .generic, headers: CarrierRequestHeaders([:]))
        }
        let deep = #"{"id":"e","x":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}"
        let error = try #require(throws: CarrierWebhookError.self) {
            try CarrierWebhookParser.parse(Array(deep.utf8), provider: .generic, headers: CarrierRequestHeaders([:]))
        }
        #expect(error.code == .malformedBody)
        let long =
            #"{"id":"e","trackingNumber":"\#(String(repeating: "9", count: 129))","carrier":"ups","status":"delivered","occurredAt":"2026-11-26T10:00:00Z"}"#
        let tooLong = try #require(throws: CarrierWebhookError.self) {
            try CarrierWebhookParser.parse(Array(long.utf8), provider: .generic, headers: CarrierRequestHeaders([:]))
        }
        #expect(tooLong.code == .invalidField)
    }

    @Test func datesCarriersSendAreReadWithoutGuessing() throws {
        // A checkpoint without an offset is read as UTC; a bare date as midnight UTC.
        for (text, expected) in [
            ("2026-11-26T07:42:00", "2026-11-26T07:42:00Z"), ("2026-11-26", "2026-11-26T00:00:00Z"), ("2026-11-26 07:42:00", "2026-11-26T07:42:00Z"),
        ] {
            let body =
                #"{"event":"tracking_update","event_id":"x","msg":{"tracking_number":"1","tag":"InTransit","checkpoints":[{"checkpoint_time":"\#(text)"}]}}"#
            guard case .event(let event) = try CarrierWebhookParser.parse(Array(body.utf8), provider: .aftership, headers: CarrierRequestHeaders([:]))
            else {
                Issue.record("not an event")
                continue
            }
            #expect(event.occurredAt == date(expected), "\(text)")
        }
    }

    @Test func fieldsLoseTheWhiteSpaceFoundationWouldTrimAndNothingElse() throws {
        for (sent, kept) in [
            ("1Z999", "1Z999"), ("  1Z 999\t", "1Z 999"), ("\u{00A0}\u{2028}1Z\u{3000}\n", "1Z"), ("\u{200B}1Z", "1Z"), ("é1Zé", "é1Zé"),
            ("~1Z!", "~1Z!"),
        ] {
            #expect(kept == sent.trimmingCharacters(in: .whitespacesAndNewlines), "Foundation agrees: \(sent.debugDescription)")
            let body = try JSONEncoder().encode([
                "id": "e1", "trackingNumber": sent, "carrier": "ups", "status": "InTransit", "occurredAt": "2026-11-29T10:00:00Z",
            ])
            guard case .event(let event) = try CarrierWebhookParser.parse(Array(body), provider: .generic, headers: CarrierRequestHeaders([:]))
            else {
                Issue.record("not an event")
                continue
            }
            #expect(event.trackingNumber == kept, "\(sent.debugDescription)")
        }
        #expect(CarrierNames.displayName(for: " \t Veho\u{00A0}") == "Veho")
        let blank = #"{"id":"e1","trackingNumber":" \u3000\n ","carrier":"ups","status":"InTransit","occurredAt":"2026-11-29T10:00:00Z"}"#
        #expect(throws: CarrierWebhookError.self) {
            try CarrierWebhookParser.parse(Array(blank.utf8), provider: .generic, headers: CarrierRequestHeaders([:]))
        }
    }

    @Test func carrierNamesAndUnknownStatusesStayOpen() throws {
        #expect(CarrierNames.displayName(for: "dhl-express") == "DHL Express")
        #expect(CarrierNames.displayName(for: "dhl_express") == "DHL Express")
        #expect(CarrierNames.displayName(for: "DHLExpress") == "DHL Express")
        #expect(CarrierNames.displayName(for: "Veho") == "Veho")
        let body =
            #"{"event":"tracking_update","event_id":"x","ts":1795626000,"msg":{"tracking_number":"1","tag":"HeldAtCustoms2027","slug":"veho"}}"#
        guard case .event(let event) = try CarrierWebhookParser.parse(Array(body.utf8), provider: .aftership, headers: CarrierRequestHeaders([:]))
        else {
            Issue.record("not an event")
            return
        }
        #expect(event.status == "HeldAtCustoms2027")
        #expect(CarrierStatusMap.defaults(for: .aftership).outcome(for: event) == .unmapped)
    }
}
