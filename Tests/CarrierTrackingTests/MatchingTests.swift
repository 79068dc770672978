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

    @Test func eventsSurviveEncoding() throws {
        let event = try Fixture.event("aftership-tracking-update", .aftership, headers: ["As-Webhook-Version": "2026-07"])
        let decoded = try JSONDecoder().decode(CarrierEvent.self, from: try JSONEncoder().encode(event))
        #expect(decoded == event)
    }
}
