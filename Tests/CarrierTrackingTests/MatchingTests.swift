import CarrierTestSupport
import CarrierTracking
import Foundation
import OrderModel
import TestSupport
import Testing

/// Which fulfillment an event updates, the generic signer, and events kept across a restart.
@Suite struct MatchingTests {
    func order(_ fulfillments: [(String, String?, String?)]) -> JSONValue {
        [
            "status": "open",
            "fulfillments": .array(
                fulfillments.map { identifier, number, carrier in
                    var members: [String: JSONValue] = [
                        "fulfillmentIdentifier": .string(identifier), "fulfillmentType": "shipping", "status": "processing",
                    ]
                    members["trackingNumber"] = number.map(JSONValue.string)
                    members["carrier"] = carrier.map(JSONValue.string)
                    return .object(members)
                } + [["fulfillmentIdentifier": "pickup", "fulfillmentType": "pickup", "status": "open"]]),
        ]
    }

    func event(_ number: String, carrier: String = "UPS") -> CarrierEvent {
        CarrierEvent(
            provider: .aftership, idempotencyKey: "k", trackingNumber: number, carrierCode: carrier.lowercased(), carrierName: carrier,
            status: "InTransit",
            occurredAt: date("2026-11-26T10:00:00Z"))
    }

    func match(_ order: JSONValue, _ event: CarrierEvent, byOrderReference: Bool = false) -> String? {
        CarrierMatching.fulfillment(in: order, for: event, byOrderReference: byOrderReference)?["fulfillmentIdentifier"]?.stringValue
    }

    @Test func byTrackingNumberAsPrintedAnyWay() {
        let order = order([("a", "1Z 999-AA1 0123456784", nil), ("b", "9400111899223197428490", "USPS")])
        #expect(match(order, event("1z999aa10123456784")) == "a")
        #expect(match(order, event("9400 1118 9922 3197 4284 90", carrier: "USPS")) == "b")
        #expect(match(order, event("unknown")) == nil)
    }

    @Test func aRecycledNumberIsDecidedByTheCarrier() {
        let order = order([("ups", "123456", "ups"), ("dhl", "123456", "DHL")])
        #expect(match(order, event("123456", carrier: "UPS")) == "ups")
        #expect(match(order, event("123456", carrier: "DHL")) == "dhl")
        #expect(match(order, event("123456", carrier: "FedEx")) == nil)
    }

    @Test func byOrderReferenceOnlyTheOneUntrackedShipment() {
        let one = order([("tracked", "999", nil), ("untracked", nil, nil)])
        #expect(match(one, event("555"), byOrderReference: true) == "untracked")
        #expect(match(one, event("555"), byOrderReference: false) == nil)
        let two = order([("a", nil, nil), ("b", nil, nil)])
        #expect(match(two, event("555"), byOrderReference: true) == nil)
    }

    @Test(.enabled(if: ExternalTools.hasOpenSSL, "needs the openssl command-line tool"))
    func theGenericSignerAgreesWithOpenSSLAndTheVerifier() async throws {
        let body = try Fixture.bytes("generic-event")
        let now = date("2026-11-26T12:00:00Z")
        let header = GenericEventSigner.signatureHeader(body: body, secret: "whsec", at: now)
        let expected = try OpenSSLHMAC.hex(key: "whsec", message: Array("1795694400.".utf8) + body)
        #expect(header == "t=1795694400,v1=\(expected)")
        try await CarrierWebhookVerifier(provider: .generic, secret: "whsec")
            .verify(body: body, headers: CarrierRequestHeaders(["OrderTrack-Signature": header]), now: now)
    }

    @Test func eventsSurviveTheirStoredForm() throws {
        let event = try Fixture.event("aftership-tracking-update", .aftership, headers: ["As-Webhook-Version": "2026-07"])
        #expect(try CarrierEvent(storedForm: event.storedForm) == event)
    }

    /// Every member, with the escapes and dates `JSONEncoder` wrote when the stored form was the type's `Codable` one.
    static let everyMember = CarrierEvent(
        provider: .aftership, idempotencyKey: "evt_1", trackingNumber: "1Z999", carrierCode: "ups", carrierName: "UPS", status: "InTransit",
        subStatus: "InTransit_001", occurredAt: Date(timeIntervalSince1970: 1_795_694_400.25),
        estimatedDelivery: EstimatedDelivery(at: Date(timeIntervalSince1970: 1_795_780_800), windowDuration: "PT4H"),
        trackingURL: URL(string: "https://example.com/t?n=1Z999&x=%20"), statusDescription: "Departed \"hub\" / sorted\n", orderReference: "#1001",
        webhookVersion: "2026-07")

    /// Events stored by a release that used `JSONEncoder` wait in the inbox across an upgrade; instances of both
    /// releases read each other's.
    @Test func theStoredFormIsTheOneEarlierReleasesWroteAndRead() throws {
        let written = #"""
            {"carrierCode":"ups","carrierName":"UPS","estimatedDelivery":{"at":817473600,"windowDuration":"PT4H"},"idempotencyKey":"evt_1",\#
            "occurredAt":817387200.25,"orderReference":"#1001","provider":"aftership","status":"InTransit",\#
            "statusDescription":"Departed \"hub\" \/ sorted\n","subStatus":"InTransit_001","trackingNumber":"1Z999",\#
            "trackingURL":"https:\/\/example.com\/t?n=1Z999&x=%20","webhookVersion":"2026-07"}
            """#
        #expect(try CarrierEvent(storedForm: Array(written.utf8)) == Self.everyMember)
        // What this release writes: the same members and values, which the earlier reader (`JSONDecoder` on the
        // synthesized `Decodable`: dates as seconds since 2001, the URL as text) takes.
        let stored = try JSONValue.parse(Self.everyMember.storedForm)
        let earlier = try JSONValue.parse(Array(written.utf8))
        #expect(stored.objectValue?.keys.sorted() == earlier.objectValue?.keys.sorted())
        for key in earlier.objectValue?.keys.sorted() ?? [] where key != "occurredAt" && key != "estimatedDelivery" {
            #expect(stored[key] == earlier[key], "\(key)")
        }
        #expect(stored["occurredAt"]?.numberLiteral.flatMap(Double.init) == 817_387_200.25)
        #expect(stored["estimatedDelivery"]?["at"]?.numberLiteral.flatMap(Double.init) == 817_473_600)
        #expect(stored["estimatedDelivery"]?["windowDuration"] == "PT4H")

        let minimal = CarrierEvent(
            provider: .generic, idempotencyKey: "a", trackingNumber: "T", status: "delivered", occurredAt: Date(timeIntervalSinceReferenceDate: 0))
        #expect(
            String(decoding: minimal.storedForm, as: UTF8.self)
                == #"{"idempotencyKey":"a","occurredAt":0.0,"provider":"generic","status":"delivered","trackingNumber":"T"}"#)
    }

    @Test func aDamagedStoredFormNamesWhatIsWrong() {
        for (bytes, words) in [
            ("{\"provider\":\"generic\"}", "has no idempotencyKey"),
            (#"{"provider":"pigeon","idempotencyKey":"a","trackingNumber":"T","status":"s","occurredAt":0}"#, "provider is not one"),
            (#"{"provider":"generic","idempotencyKey":"a","trackingNumber":"T","status":"s","occurredAt":"today"}"#, "occurredAt is not a number"),
            (#"{"provider":"generic","idempotencyKey":1,"trackingNumber":"T","status":"s","occurredAt":0}"#, "idempotencyKey is not a string"),
            ("not json", "the stored event: invalid JSON"),
        ] {
            #expect {
                try CarrierEvent(storedForm: Array(bytes.utf8))
            } throws: { error in
                (error as? CarrierWebhookError)?.message.contains(words) == true
            }
        }
    }
}
