import CarrierTracking
import Foundation
import OrderModel
import Testing

/// Never backwards, never noisy: the decision for one fulfillment and the order-level completion rule.
@Suite struct UpdateRulesTests {
    let map = CarrierStatusMap.defaults(for: .aftership)

    func fulfillment(_ status: String, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        var members: [String: JSONValue] = ["fulfillmentIdentifier": "f1", "fulfillmentType": "shipping", "status": .string(status)]
        members.merge(extra) { _, new in new }
        return .object(members)
    }

    func event(_ tag: String, at time: String, description: String? = nil, estimate: EstimatedDelivery? = nil, provider: CarrierProvider = .aftership)
        -> CarrierEvent
    {
        CarrierEvent(
            provider: provider, idempotencyKey: UUID().uuidString, trackingNumber: "TN1", carrierCode: "usps", carrierName: "USPS", status: tag,
            occurredAt: date(time), estimatedDelivery: estimate, trackingURL: URL(string: "https://t.example/TN1"), statusDescription: description)
    }

    func decide(_ current: JSONValue, last: String? = nil, _ event: CarrierEvent, map: CarrierStatusMap? = nil) -> CarrierFulfillmentDecision {
        CarrierUpdateRules.decide(fulfillment: current, lastAppliedScanAt: last.map(date), event: event, statusMap: map ?? self.map)
    }

    func members(_ decision: CarrierFulfillmentDecision) -> [String: JSONValue] {
        guard case .update(let update) = decision else { return [:] }
        return update.members
    }

    @Test func firstScanFillsTheShipmentAndSetsShippedAt() {
        let decision = decide(
            fulfillment("processing"),
            event("InTransit", at: "2026-11-24T10:00:00Z", estimate: EstimatedDelivery(at: date("2026-11-27T09:00:00Z"), windowDuration: "PT2H")))
        #expect(
            members(decision) == [
                "status": "onTheWay", "carrier": "USPS", "trackingNumber": "TN1", "trackingURL": "https://t.example/TN1",
                "estimatedDeliveryAt": "2026-11-27T09:00:00.000Z", "estimatedDeliveryWindowDuration": "PT2H", "shippedAt": "2026-11-24T10:00:00.000Z",
            ])
        guard case .update(let update) = decision else { return }
        #expect(update.status == .onTheWay)
        #expect(update.orderPatch["fulfillments"]?.arrayValue?.first?["fulfillmentIdentifier"] == "f1")
    }

    @Test func anOlderScanNeverOverwritesANewerState() {
        let current = fulfillment(
            "outForDelivery",
            ["carrier": "USPS", "trackingNumber": "TN1", "trackingURL": "https://t.example/TN1", "shippedAt": "2026-11-24T10:00:00.000Z"])
        #expect(decide(current, last: "2026-11-26T08:00:00Z", event("InTransit", at: "2026-11-25T21:00:00Z")) == .stale)
        // Even an issue, if its scan is older.
        #expect(decide(current, last: "2026-11-26T08:00:00Z", event("Exception", at: "2026-11-26T07:59:59Z")) == .stale)
        // A newer scan with a lower status moves nothing either, and is not stale.
        #expect(decide(current, last: "2026-11-26T08:00:00Z", event("InTransit", at: "2026-11-26T09:00:00Z")) == .unchanged)
        // The same scan time again is not older.
        #expect(members(decide(current, last: "2026-11-26T08:00:00Z", event("Delivered", at: "2026-11-26T08:00:00Z")))["status"] == "delivered")
    }

    @Test func aScanThatChangesNothingWalletShowsIsUnchanged() {
        let current = fulfillment(
            "onTheWay",
            [
                "carrier": "USPS", "trackingNumber": "TN1", "trackingURL": "https://t.example/TN1", "shippedAt": "2026-11-24T10:00:00.000Z",
                "estimatedDeliveryAt": "2026-11-27T09:00:00Z",
            ])
        // Same status, same estimate (written differently): no version, no push.
        #expect(
            decide(current, event("InTransit", at: "2026-11-25T10:00:00Z", estimate: EstimatedDelivery(at: date("2026-11-27T09:00:00Z"))))
                == .unchanged)
        #expect(decide(current, event("Expired", at: "2026-11-25T10:00:00Z")) == .unchanged)
        #expect(decide(current, event("SomethingNew", at: "2026-11-25T10:00:00Z")) == .unchanged)
        // An estimate revision alone is a change.
        #expect(
            members(decide(current, event("InTransit", at: "2026-11-25T10:00:00Z", estimate: EstimatedDelivery(at: date("2026-11-28T09:00:00Z")))))
                == [
                    "estimatedDeliveryAt": "2026-11-28T09:00:00.000Z"
                ])
    }

    @Test func issueFollowsAnyStateAndALaterForwardScanClearsIt() {
        let onTheWay = fulfillment(
            "onTheWay", ["carrier": "USPS", "trackingNumber": "TN1", "trackingURL": "https://t.example/TN1", "shippedAt": "2026-11-24T10:00:00.000Z"])
        let issue = decide(onTheWay, event("Exception", at: "2026-11-25T10:00:00Z", description: "Customs delay"))
        #expect(members(issue) == ["status": "issue", "statusDescription": "Customs delay"])
        let withoutText = decide(onTheWay, event("AttemptFail", at: "2026-11-25T10:00:00Z"))
        #expect(members(withoutText) == ["status": "issue", "statusDescription": .string(CarrierUpdateRules.defaultIssueDescription)])
        // The forward scan clears the issue and its explanation.
        let inIssue = fulfillment(
            "issue",
            [
                "carrier": "USPS", "trackingNumber": "TN1", "trackingURL": "https://t.example/TN1", "shippedAt": "2026-11-24T10:00:00.000Z",
                "statusDescription": "Customs delay",
            ])
        #expect(
            members(decide(inIssue, last: "2026-11-25T10:00:00Z", event("OutForDelivery", at: "2026-11-26T07:00:00Z"))) == [
                "status": "outForDelivery", "statusDescription": .null,
            ])
        // A second issue with new wording updates the wording.
        #expect(
            members(decide(inIssue, event("Exception", at: "2026-11-26T07:00:00Z", description: "Address problem"))) == [
                "statusDescription": "Address problem"
            ])
    }

    @Test func deliveredIsTerminalUnlessAnIssueFollows() {
        let delivered = fulfillment("delivered", ["carrier": "USPS", "trackingNumber": "TN1", "deliveredAt": "2026-11-26T12:00:00.000Z"])
        #expect(decide(delivered, event("OutForDelivery", at: "2026-11-27T07:00:00Z")) == .unchanged)
        #expect(
            decide(delivered, event("InTransit", at: "2026-11-27T07:00:00Z", estimate: EstimatedDelivery(at: date("2026-11-30T00:00:00Z"))))
                == .unchanged)
        let returned = decide(
            delivered, event("return_to_sender", at: "2026-11-28T07:00:00Z", description: "Return", provider: .easypost),
            map: .defaults(for: .easypost))
        #expect(members(returned)["status"] == "issue")
        #expect(decide(delivered, event("cancelled", at: "2026-11-28T07:00:00Z", provider: .easypost), map: .defaults(for: .easypost)) == .unchanged)
        let cancelled = fulfillment("cancelled")
        #expect(decide(cancelled, event("Delivered", at: "2026-11-28T07:00:00Z")) == .unchanged)
    }

    @Test func deliveryStampsItsScanTime() {
        let decision = decide(
            fulfillment("outForDelivery", ["shippedAt": "2026-11-24T10:00:00.000Z"]),
            event("Delivered", at: "2026-11-26T12:34:56Z", estimate: EstimatedDelivery(at: date("2026-11-26T18:00:00Z"))))
        let changed = members(decision)
        #expect(changed["status"] == "delivered")
        #expect(changed["deliveredAt"] == "2026-11-26T12:34:56.000Z")
        // Already shipped: shippedAt stays; a delivered parcel's estimate is moot.
        #expect(changed["shippedAt"] == nil)
        #expect(changed["estimatedDeliveryAt"] == nil)
        // A parcel first seen delivered was shipped too.
        #expect(members(decide(fulfillment("open"), event("Delivered", at: "2026-11-26T12:34:56Z")))["shippedAt"] == "2026-11-26T12:34:56.000Z")
        // Processing is not shipped.
        #expect(members(decide(fulfillment("open"), event("InfoReceived", at: "2026-11-26T12:34:56Z")))["shippedAt"] == nil)
    }

    @Test func theMerchantsValuesWin() {
        let current = fulfillment(
            "processing", ["carrier": "carrier.usps.priority", "trackingNumber": "TN1", "trackingURL": "https://merchant.example/track/TN1"])
        let changed = members(decide(current, event("InTransit", at: "2026-11-24T10:00:00Z")))
        #expect(changed["carrier"] == nil)
        #expect(changed["trackingURL"] == nil)
        #expect(changed["status"] == "onTheWay")
    }

    @Test func windowFollowsTheEstimate() {
        let current = fulfillment(
            "onTheWay",
            [
                "carrier": "USPS", "trackingNumber": "TN1", "trackingURL": "https://t.example/TN1", "shippedAt": "2026-11-24T10:00:00.000Z",
                "estimatedDeliveryAt": "2026-11-27T09:00:00.000Z", "estimatedDeliveryWindowDuration": "PT2H",
            ])
        // A new single-time estimate drops the old window.
        #expect(
            members(decide(current, event("InTransit", at: "2026-11-25T10:00:00Z", estimate: EstimatedDelivery(at: date("2026-11-28T09:00:00Z")))))
                == [
                    "estimatedDeliveryAt": "2026-11-28T09:00:00.000Z", "estimatedDeliveryWindowDuration": .null,
                ])
        // The same start with a wider window changes the window only.
        #expect(
            members(
                decide(
                    current,
                    event(
                        "InTransit", at: "2026-11-25T10:00:00Z", estimate: EstimatedDelivery(at: date("2026-11-27T09:00:00Z"), windowDuration: "PT4H")
                    ))) == [
                    "estimatedDeliveryWindowDuration": "PT4H"
                ])
    }

    @Test func pickupRowsSayReadyForPickupAndGenericDescriptionsAreKept() {
        let changed = members(
            decide(
                fulfillment(
                    "onTheWay",
                    ["carrier": "USPS", "trackingNumber": "TN1", "trackingURL": "https://t.example/TN1", "shippedAt": "2026-11-24T10:00:00.000Z"]),
                event("AvailableForPickup", at: "2026-11-26T10:00:00Z")))
        #expect(changed == ["status": "outForDelivery", "statusDescription": "Ready for pickup"])
        let generic = members(
            decide(
                fulfillment("processing"), event("onTheWay", at: "2026-11-26T10:00:00Z", description: "Left the hub", provider: .generic),
                map: .defaults(for: .generic)))
        #expect(generic["statusDescription"] == "Left the hub")
        // An aggregator's per-scan text on a forward status is not copied (it would push on every scan).
        #expect(
            members(decide(fulfillment("processing"), event("InTransit", at: "2026-11-26T10:00:00Z", description: "Departure Scan")))[
                "statusDescription"] == nil)
    }

    @Test func pickupFulfillmentsAreNotTouched() {
        let pickup: JSONValue = ["fulfillmentIdentifier": "p1", "fulfillmentType": "pickup", "status": "open"]
        #expect(decide(pickup, event("Delivered", at: "2026-11-26T10:00:00Z")) == .unchanged)
    }

    @Test func rankAndAllowedMoves() {
        #expect(CarrierUpdateRules.allows(from: .processing, to: .shipped))
        #expect(!CarrierUpdateRules.allows(from: .onTheWay, to: .shipped))
        #expect(CarrierUpdateRules.allows(from: .issue, to: .processing))
        #expect(CarrierUpdateRules.allows(from: .outForDelivery, to: .cancelled))
        #expect(!CarrierUpdateRules.allows(from: .cancelled, to: .issue))
    }

    @Test func orderCompletesWhenEveryShipmentIsDelivered() {
        func order(_ statuses: [String], status: String = "open", pickups: [String] = [], returns: [String] = []) -> JSONValue {
            let fulfillments =
                statuses.enumerated().map {
                    JSONValue.object([
                        "fulfillmentIdentifier": .string("f\($0.offset)"), "fulfillmentType": "shipping", "status": .string($0.element),
                    ])
                }
                + pickups.map { JSONValue.object(["fulfillmentIdentifier": "p", "fulfillmentType": "pickup", "status": .string($0)]) }
            return ["status": .string(status), "fulfillments": .array(fulfillments), "returns": .array(returns.map { ["status": .string($0)] })]
        }
        #expect(CarrierUpdateRules.shouldCompleteOrder(order(["delivered", "delivered"])))
        #expect(CarrierUpdateRules.shouldCompleteOrder(order(["delivered", "cancelled"])))
        #expect(!CarrierUpdateRules.shouldCompleteOrder(order(["delivered", "outForDelivery"])))
        #expect(!CarrierUpdateRules.shouldCompleteOrder(order(["cancelled"])))
        #expect(!CarrierUpdateRules.shouldCompleteOrder(order([])))
        #expect(!CarrierUpdateRules.shouldCompleteOrder(order(["delivered"], status: "completed")))
        #expect(!CarrierUpdateRules.shouldCompleteOrder(order(["delivered"], status: "cancelled")))
        #expect(!CarrierUpdateRules.shouldCompleteOrder(order(["delivered"], pickups: ["readyForPickup"])))
        #expect(CarrierUpdateRules.shouldCompleteOrder(order(["delivered"], pickups: ["pickedUp"])))
        #expect(!CarrierUpdateRules.shouldCompleteOrder(order(["delivered"], returns: ["onTheWay"])))
        #expect(CarrierUpdateRules.shouldCompleteOrder(order(["delivered"], returns: ["completed"])))
    }
}
