import OrderModel
import Testing

@testable import OrderTrackDashboard

/// The order page's preview shows what Wallet shows: a pickup's window, returns and the return policy included.
@Suite struct WalletPreviewTests {
    /// The dashboard's dates: UTC, said so, every month's name, before 1970 too.
    @Test(arguments: [
        ("2026-11-23T16:04:05Z", false, "23 Nov 2026, 16:04 UTC"), ("2026-11-23T16:04:05Z", true, "23 Nov 2026, 16:04:05 UTC"),
        ("2026-01-01T00:00:00Z", false, "1 Jan 2026, 00:00 UTC"), ("2025-09-30T23:59:59Z", true, "30 Sep 2025, 23:59:59 UTC"),
        ("2024-02-29T09:05:00Z", false, "29 Feb 2024, 09:05 UTC"), ("1969-12-31T23:00:00Z", false, "31 Dec 1969, 23:00 UTC"),
    ])
    func datesReadInUTC(date: String, withSeconds: Bool, shown: String) throws {
        let parsed = try #require(DateTimeFormat.parseRFC3339(date))
        #expect(OrderRow.format(parsed, withSeconds: withSeconds) == shown)
    }

    @Test func aPickupShowsItsWindowFromPickupAtAndItsDuration() {
        let order: JSONValue = [
            "fulfillments": [
                [
                    "fulfillmentType": "pickup", "fulfillmentIdentifier": "p-1", "status": "readyForPickup", "displayName": "Main Street store",
                    "pickupAt": "2026-11-24T14:00:00Z", "pickupWindowDuration": "PT2H30M",
                ]
            ]
        ]
        let pickup = WalletPreview(order: order, orderIdentifier: "o-1") { _ in nil }.fulfillments[0]
        #expect(pickup.headline == "Ready for pickup")
        #expect(pickup.location == "Main Street store")
        #expect(pickup.pickupWindow == "24 Nov 2026, 14:00 UTC, for 2 hours 30 minutes")
        #expect(pickup.steps.map(\.state) == [.done, .done, .current, .upcoming])
    }

    @Test func returnsAndTheReturnPolicyAreShown() {
        let order: JSONValue = [
            "returns": [
                [
                    "returnIdentifier": "r-1", "status": "onTheWay", "carrier": "UPS", "returnNumber": "RMA-77",
                    "dropOffBy": "2026-12-01T18:00:00Z", "statusDescription": "Label_Sent",
                ]
            ],
            "returnInfo": [
                "returnPolicyURL": "https://shop.example.com/returns", "returnPolicyDescription": "Free returns",
                "returnDeadline": "2026-12-24T00:00:00Z",
            ],
        ]
        let preview = WalletPreview(order: order, orderIdentifier: "o-1", strings: ["Label_Sent": "Your label is ready"]) { _ in nil }
        let entry = preview.returns[0]
        #expect(entry.headline == "Return · On the way")
        #expect(entry.statusDescription == "Your label is ready", "localizable texts come from the chosen order.strings")
        #expect(entry.carrier == "UPS" && entry.returnNumber == "RMA-77")
        #expect(entry.dropOffBy == "1 Dec 2026, 18:00 UTC")
        #expect(preview.returnPolicy == "Free returns · returns until 24 Dec 2026, 00:00 UTC")
    }

    @Test(arguments: [("PT2H", "2 hours"), ("P1D", "1 day"), ("PT1H1M", "1 hour 1 minute"), ("P1DT12H", "1 day 12 hours")])
    func durationsReadAsWords(duration: String, words: String) {
        #expect(WalletPreview.durationWords(duration) == words)
    }

    @Test(arguments: ["P1Y", "PT", "2H", "PT5", "P1W"])
    func otherDurationsAreLeftOut(duration: String) {
        #expect(WalletPreview.durationWords(duration) == nil)
    }
}
