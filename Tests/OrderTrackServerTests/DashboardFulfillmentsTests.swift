import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackDashboard
@testable import OrderTrackServer

/// The dashboard's fulfillment updates page (#32): a warehouse's CSV applied row by row through the bulk API's update
/// path, each row's result shown, the orders' history and event log naming the dashboard, nothing applied without the
/// page's CSRF token or from a file that does not read.
@Suite struct DashboardFulfillmentsTests {
    static func post(_ client: Client, _ browser: DashboardTests.Browser, csrf: String?, csv: String) async throws -> Client.Reply {
        var fields = ["csv": csv]
        if let csrf { fields["csrf"] = csrf }
        var (headers, body) = DashboardTests.form(fields)
        headers[.cookie] = browser.cookie
        return try await client.call(.post, "/dashboard/fulfillments", headers: headers, body: body)
    }

    /// The results table's rows as (line, label, details) triples, from the page's HTML.
    static func results(_ html: String) -> [(line: Int, label: String, detail: String)] {
        let pattern = #/<td data-label="Line">(\d+)</td>\s*<td data-label="Result"><span class="badge[^"]*">(\w+)</span>.*?Details">(.*?)</td>/#
        return html.matches(of: pattern.dotMatchesNewlines()).map { (Int($0.1) ?? 0, String($0.2), String($0.3)) }
    }

    static func fulfillments(_ client: Client, _ order: CreatedTestOrder) async throws -> [JSONValue] {
        let reply = try await client.merchant(.get, order.path)
        return (reply.json["order"] ?? reply.json)["fulfillments"]?.arrayValue ?? []
    }

    @Test func eachRowAppliesAsItsPatchAndThePageShowsEveryRowsResult() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let first = try await client.createOrder(number: "CSV-1")
            var twoParcels = SampleContent.order(number: "CSV-2")
            twoParcels["fulfillments"] = [
                ["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"],
                ["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-2", "status": "onTheWay", "trackingNumber": "TRK-B2"],
            ]
            let second = try await client.createOrder(twoParcels)
            let third = try await client.createOrder(number: "CSV-3")
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)

            let form = try await client.call(.get, "/dashboard/fulfillments", headers: [.cookie: browser.cookie])
            #expect(form.status == .ok && form.text.contains("<h1>Update fulfillments</h1>"))
            #expect(form.headers[.contentSecurityPolicy] == DashboardTests.contentSecurityPolicy)
            #expect(try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie]).text.contains(#"href="/dashboard/fulfillments""#))

            let csv = """
                Order number;Tracking number;Carrier;Status
                CSV-1;1Z999AA10123456784;UPS;On the way
                CSV-2;TRK-B2;DHL;delivered
                CSV-2;NEW-1;UPS;onTheWay
                CSV-3;;;flying
                NOPE-404;1;UPS;delivered
                CSV-1;1Z999AA10123456784;UPS;onTheWay
                CSV-3;;;
                """.replacingOccurrences(of: "\n", with: "\r\n")
            let forged = try await Self.post(client, browser, csrf: nil, csv: csv)
            #expect(forged.status == .forbidden)
            #expect(try await client.merchant(.get, first.path).headers[.eTag] == "\"1\"", "a post without the page's token applies nothing")

            let reply = try await Self.post(client, browser, csrf: browser.csrfToken, csv: csv)
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply.text.contains("2 applied, 1 unchanged, 4 failed, of 7 rows."))
            let rows = Self.results(reply.text)
            #expect(rows.map(\.line) == Array(2...8), "one result per row, in file order: \(rows.map(\.line))")
            #expect(rows.map(\.label) == ["Applied", "Applied", "Failed", "Failed", "Failed", "Unchanged", "Failed"])
            #expect(rows[0].detail.contains("Now at version 2"))
            #expect(rows[2].detail.contains("2 shipping fulfillments (ship-1, ship-2)") && rows[2].detail.contains("fulfillmentIdentifier"))
            #expect(rows[3].detail.contains("flying") || rows[3].detail.contains("status"), "\(rows[3].detail)")
            #expect(rows[4].detail.contains("no order numbered NOPE-404"))
            #expect(rows[6].detail.contains("changes nothing"))

            let shipped = try await Self.fulfillments(client, first).first
            #expect(shipped?["status"] == "onTheWay" && shipped?["carrier"] == "UPS" && shipped?["trackingNumber"] == "1Z999AA10123456784")
            let parcels = try await Self.fulfillments(client, second)
            #expect(parcels.map { $0["status"]?.stringValue } == ["processing", "delivered"], "the row found ship-2 by its tracking number")
            #expect(parcels[1]["carrier"] == "DHL")
            #expect(try await client.merchant(.get, third.path).headers[.eTag] == "\"1\"", "failed rows change nothing")

            // The same update path as PATCH: the history and the event log name the dashboard.
            let history = try await client.merchant(.get, "\(first.path)/history").json["data"]?.arrayValue?.first
            #expect(history?.serializedString().contains("dashboard") == true, "\(history ?? .null)")
            let events = try await EventRoutesTests.allEvents(client, query: "&type=order.updated", limit: 100)
            let update = try #require(events.first { $0["data"]?["orderIdentifier"]?.stringValue == first.id })
            #expect(update["data"]?["actor"]?["channel"] == "dashboard", "\(update)")
            let delivered = try await EventRoutesTests.allEvents(client, query: "&type=fulfillment.delivered", limit: 100)
            #expect(delivered.map { $0["data"]?["fulfillmentIdentifier"] } == ["ship-2"])
        }
    }

    @Test func aFileThatDoesNotReadAppliesNothingAndSaysWhy() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let order = try await client.createOrder(number: "CSV-9")
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            for (csv, reason) in [
                ("orderNumber,weight\nCSV-9,2kg", "weight is not a column of fulfillment updates"),
                ("carrier,status\nUPS,delivered", "one of them is orderNumber or orderIdentifier"),
                ("orderNumber,status\n\"CSV-9,delivered", "a quoted field is never closed"),
                ("orderNumber,status,status\nCSV-9,delivered,issue", "the column status is named twice"),
            ] {
                let reply = try await Self.post(client, browser, csrf: browser.csrfToken, csv: csv)
                #expect(reply.status == .badRequest)
                #expect(reply.text.contains("Nothing was applied: ") && reply.text.contains(DashboardCarriersTests.escaped(reason)), "\(csv)")
                #expect(reply.text.contains(DashboardCarriersTests.escaped(csv)), "the text is kept for correcting")
            }
            #expect(try await client.merchant(.get, order.path).headers[.eTag] == "\"1\"")
        }
    }

    @Test func rowsReadAsRequests() throws {
        let rows = try FulfillmentCSV.requests(Array("ORDER_NUMBER,fulfillment-identifier,Status,\nA-1,ship-2,Out for delivery,\nA-2,,,x\n".utf8))
        #expect(rows.count == 2)
        let first = try rows[0].request.get()
        #expect(first.orderNumber == "A-1" && first.fulfillment?.fulfillmentIdentifier == "ship-2" && first.patch == ["status": "outForDelivery"])
        #expect(throws: OrderTrackError.self) { try rows[1].request.get() }
        #expect(throws: OrderTrackError.self) { try FulfillmentCSV.requests([]) }
    }
}
