import Foundation
import HTTPTypes
import OrderModel
import OrderZip
import Testing
import WireFormats

/// An order of schemaVersion 2 (iOS 17 and later) leaves Apple's deprecated payment.status out; its state comes from
/// payment.transactions[]. It crosses every seam: created, packaged, shown in the dashboard, looked up as refunded.
@Suite struct SchemaVersionTwoTests {
    static func transaction(_ type: String, amount: String, at time: String) -> JSONValue {
        [
            "amount": ["amount": .string(amount), "currency": "USD"], "createdAt": .string(time), "paymentMethod": ["displayName": "Visa 1234"],
            "status": "completed", "transactionType": .string(type),
        ]
    }

    @Test func aVersionTwoOrderIsCreatedPackagedShownAndLookedUpAsRefunded() async throws {
        let server = try LookupEndpointTests.server()
        defer { server.remove() }
        try await server.run { client in
            var order = LookupEndpointTests.order(number: "V2-1")
            order["schemaVersion"] = 2
            order["payment"] = [
                "total": ["amount": "42.00", "currency": "USD"],
                "transactions": [Self.transaction("purchase", amount: "42.00", at: "2026-11-20T10:00:00Z")],
            ]
            let created = try await client.merchant(.post, "/api/v1/orders", json: order)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.json["order"]?["payment"]?["status"] == nil)
            #expect(
                created.json["warnings"]?.arrayValue?.contains {
                    $0["path"] == "schemaVersion" && $0["message"]?.stringValue?.contains("iOS 16") == true
                }
                    == true, "\(created.text)")
            let details = try #require(created.json["orderDetails"])
            let (type, id) = (try #require(details["orderTypeIdentifier"]?.stringValue), try #require(details["orderIdentifier"]?.stringValue))

            // The refund arrives as a transaction; no status is ever set.
            let refunded = try await client.merchant(
                .patch, "/api/v1/orders/\(type)/\(id)",
                json: [
                    "payment": [
                        "transactions": [
                            Self.transaction("purchase", amount: "42.00", at: "2026-11-20T10:00:00Z"),
                            Self.transaction("refund", amount: "42.00", at: "2026-11-21T09:00:00Z"),
                        ]
                    ]
                ])
            #expect(refunded.status == .ok && refunded.json["changed"] == true, "\(refunded.text)")

            // Packaged as sent: the device gets schemaVersion 2 without a status.
            let package = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: details["authenticationToken"]?.stringValue)
            #expect(package.status == .ok)
            let file = try #require(try ZipReader.read(package.body).first { $0.name == "order.json" })
            let packaged = try JSONValue.parse(file.data)
            #expect(packaged["schemaVersion"] == 2 && packaged["payment"]?["status"] == nil)

            // The dashboard's preview says what the transactions say.
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let page = try await client.call(.get, "/dashboard/orders/\(type)/\(id)", headers: [.cookie: browser.cookie])
            #expect(page.text.contains("<span class=\"muted\">Payment</span> Refunded · Visa 1234"), "the preview's payment line")

            // The lookup revokes every item, as for a refunded status.
            let key = try #require(client.credentials.lookup)
            let lookup = try await client.call(
                .get, "/inApps/v1/lookup/V2-1", headers: [.authorization: "Bearer \(try await LookupEndpointTests.token(key))"])
            let signed = try #require(lookup.json["signedTransactions"]?.arrayValue)
            #expect(signed.count == 5)
            for transaction in signed {
                let payload = try #require(transaction.stringValue?.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode(String($0)) })
                #expect(try JSONValue.parse(payload)["revocationReason"] == 0)
            }
        }
    }
}
