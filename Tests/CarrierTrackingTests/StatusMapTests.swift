import CarrierTracking
import OrderModel
import Testing

/// Every row of the default tables (docs/carrier-tracking.md lists the same), and per-connection overrides.
@Suite struct StatusMapTests {
    typealias Row = (provider: CarrierProvider, status: String, subStatus: String?, expected: CarrierStatusOutcome)

    static let pickup = CarrierStatusOutcome.status(.outForDelivery, description: "Ready for pickup")
    static func to(_ status: ShippingFulfillment.Status) -> CarrierStatusOutcome { .status(status, description: nil) }

    static let rows: [Row] = [
        (.aftership, "Pending", nil, to(.processing)), (.aftership, "InfoReceived", nil, to(.processing)),
        (.aftership, "InTransit", "InTransit_007", to(.onTheWay)), (.aftership, "OutForDelivery", nil, to(.outForDelivery)),
        (.aftership, "AvailableForPickup", "AvailableForPickup_001", pickup), (.aftership, "Delivered", "Delivered_005", to(.delivered)),
        (.aftership, "AttemptFail", nil, to(.issue)), (.aftership, "Exception", "Exception_011", to(.issue)), (.aftership, "Expired", nil, .noChange),
        (.easypost, "unknown", nil, .noChange), (.easypost, "pre_transit", "label_created", to(.processing)),
        (.easypost, "pre_transit", "received_at_origin_facility", to(.shipped)), (.easypost, "pre_transit", "departed_origin_facility", to(.shipped)),
        (.easypost, "in_transit", "received_at_origin_facility", to(.shipped)), (.easypost, "in_transit", "departed_origin_facility", to(.shipped)),
        (.easypost, "in_transit", "arrived_at_facility", to(.onTheWay)), (.easypost, "out_for_delivery", nil, to(.outForDelivery)),
        (.easypost, "available_for_pickup", nil, pickup), (.easypost, "delivered", nil, to(.delivered)),
        (.easypost, "return_to_sender", "return", to(.issue)), (.easypost, "failure", "lost", to(.issue)), (.easypost, "error", nil, to(.issue)),
        (.easypost, "cancelled", nil, to(.cancelled)),
        (.shippo, "UNKNOWN", nil, .noChange), (.shippo, "PRE_TRANSIT", "information_received", to(.processing)),
        (.shippo, "TRANSIT", "package_departed", to(.onTheWay)), (.shippo, "TRANSIT", "out_for_delivery", to(.outForDelivery)),
        (.shippo, "TRANSIT", "pickup_available", pickup), (.shippo, "DELIVERED", nil, to(.delivered)), (.shippo, "RETURNED", nil, to(.issue)),
        (.shippo, "FAILURE", "package_lost", to(.issue)),
        (.shipengine, "UN", nil, .noChange), (.shipengine, "NY", nil, to(.processing)), (.shipengine, "AC", nil, to(.shipped)),
        (.shipengine, "AC", "SHIPMENT_CREATED", to(.processing)), (.shipengine, "AC", "AWAITING_PICKUP_DROP_OFF", to(.processing)),
        (.shipengine, "IT", "CUSTOMS_PROCESSING", to(.onTheWay)), (.shipengine, "IT", "OUT_FOR_DELIVERY", to(.outForDelivery)),
        (.shipengine, "SP", nil, pickup), (.shipengine, "DE", nil, to(.delivered)), (.shipengine, "EX", nil, to(.issue)),
        (.shipengine, "AT", "ATTEMPTED_DELIVERY", to(.issue)),
    ]

    @Test(arguments: rows.indices)
    func defaultRow(_ index: Int) {
        let row = Self.rows[index]
        #expect(
            CarrierStatusMap.defaults(for: row.provider).outcome(status: row.status, subStatus: row.subStatus) == row.expected,
            "\(row.provider) \(row.status)/\(row.subStatus ?? "-")")
    }

    @Test func everyDefaultRowIsTested() {
        for provider in CarrierProvider.allCases where provider != .generic {
            let tested = Set(
                Self.rows.filter { $0.provider == provider }.flatMap { row in
                    [row.status.lowercased(), "\(row.status)/\(row.subStatus ?? "")".lowercased()]
                })
            for key in CarrierStatusMap.defaults(for: provider).rules.keys { #expect(tested.contains(key), "\(provider) row \(key) has no test") }
        }
    }

    @Test func genericSpeaksWalletStatuses() {
        let map = CarrierStatusMap.defaults(for: .generic)
        for status in ShippingFulfillment.Status.allCases { #expect(map.outcome(status: status.rawValue, subStatus: nil) == Self.to(status)) }
        #expect(map.outcome(status: "in-transit", subStatus: nil) == .unmapped)
    }

    @Test func overridesReplaceRowsAndAddSubStatusRows() throws {
        let map = try CarrierStatusMap(
            provider: .aftership,
            overrides: ["InTransit/InTransit_001": "shipped", "Expired": "issue", "AttemptFail": "none", "AvailableForPickup": "delivered"])
        #expect(map.outcome(status: "InTransit", subStatus: "InTransit_001") == Self.to(.shipped))
        #expect(map.outcome(status: "InTransit", subStatus: "InTransit_002") == Self.to(.onTheWay))
        #expect(map.outcome(status: "Expired", subStatus: nil) == Self.to(.issue))
        #expect(map.outcome(status: "AttemptFail", subStatus: nil) == .noChange)
        // An overridden row loses the default's wording.
        #expect(map.outcome(status: "AvailableForPickup", subStatus: nil) == Self.to(.delivered))
        let generic = try CarrierStatusMap(provider: .generic, overrides: ["in-transit": "onTheWay", "zugestellt": "delivered"])
        #expect(generic.outcome(status: "Zugestellt", subStatus: nil) == Self.to(.delivered))
    }

    @Test(arguments: [["InTransit": "inTransit"], ["InTransit": "completed"], ["": "issue"], [String(repeating: "k", count: 129): "issue"]])
    func invalidOverridesAreRefused(_ overrides: [String: String]) throws {
        let error = try #require(throws: CarrierWebhookError.self) { try CarrierStatusMap(provider: .aftership, overrides: overrides) }
        #expect(error.code == .invalidStatusMap)
    }

    @Test func unknownWalletStatusNamesTheChoices() throws {
        let error = try #require(throws: CarrierWebhookError.self) { try CarrierStatusMap(provider: .easypost, overrides: ["delivered": "done"]) }
        #expect(error.message.contains("\"done\""))
        #expect(error.message.contains("outForDelivery"))
        let many = Dictionary(uniqueKeysWithValues: (0...CarrierStatusMap.maximumOverrides).map { ("s\($0)", "issue") })
        #expect(throws: CarrierWebhookError.self) { try CarrierStatusMap(provider: .easypost, overrides: many) }
    }
}
