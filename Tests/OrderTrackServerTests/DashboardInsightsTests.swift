import Foundation
import HTTPTypes
import Mustache
import OrderModel
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackDashboard
@testable import OrderTrackServer

/// The dashboard's Insights page (#32): the merchant's roll-ups as SVG charts drawn on the server, each described for
/// screen readers, with a table and a CSV download of the same figures.
@Suite struct DashboardInsightsTests {
    @Test func thePageDrawsEachRangeAsAccessibleChartsWithATableAndACSV() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            _ = try await client.createOrder()
            _ = try await client.createOrder()
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            #expect(try await client.call(.get, "/dashboard", headers: [.cookie: browser.cookie]).text.contains(#"href="/dashboard/insights""#))

            let page = try await client.call(.get, "/dashboard/insights", headers: [.cookie: browser.cookie])
            #expect(page.status == .ok && page.headers[.contentSecurityPolicy] == DashboardTests.contentSecurityPolicy)
            let html = page.text
            #expect(html.contains("<h1>Insights</h1>") && html.contains(#"<option value="30d" selected>"#))
            #expect(
                html.matches(
                    of:
                        #/<svg class="chart-svg" viewBox="0 0 640 240" role="img" aria-labelledby="chart-[a-z]+-title" aria-describedby="chart-[a-z]+-desc">/#
                ).count == 4)
            #expect(html.contains(#"<title id="chart-orders-title">Orders created and added to Wallet</title>"#))
            #expect(html.contains("Orders created: 2 in all"), "the description states the figures")
            #expect(html.matches(of: #/<tr><th scope="row">\d{4}-\d\d-\d\d</th>/#).count == 30, "one table row a day")
            #expect(!html.contains("<script"), "no script is needed")

            let hourly = try await client.call(.get, "/dashboard/insights?range=48h", headers: [.cookie: browser.cookie]).text
            #expect(hourly.contains(#"<option value="48h" selected>"#) && hourly.contains("Hour (UTC)"))
            #expect(hourly.matches(of: #/<tr><th scope="row">\d{4}-\d\d-\d\d \d\d:00</th>/#).count == 48)
            let csv = try await client.call(.get, "/dashboard/insights.csv?range=7d", headers: [.cookie: browser.cookie])
            #expect(csv.status == .ok && csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.text.split(separator: "\r\n").count == 8)
            #expect(try await client.call(.get, "/dashboard/insights").status == .seeOther, "signed out, the page asks to sign in")
        }
    }

    /// A quote or bracket followed by a combining mark is one Character with it; escaped Character by Character it
    /// stayed as it was and could close the attribute it stood in: in the chart's SVG and in every page's template.
    @Test func markupTextIsEscapedScalarByScalar() async throws {
        let text = "a\"\u{0655} onload=x <\u{0301}b> & c"
        let escaped = HTMLText.escaped(text)
        #expect(escaped == "a&quot;\u{0655} onload=x &lt;\u{0301}b&gt; &amp; c")
        #expect(!escaped.unicodeScalars.contains { "\"<>".unicodeScalars.contains($0) })
        let library = MustacheLibrary(templates: [
            "page": try WebResources.template(#"<p title="{{text}}">{{text}}</p>{{> part}}"#),
            "part": try WebResources.template(#"<i title="{{text}}"></i>"#),
        ])
        let page = try #require(library.render(["text": text], withTemplate: "page"))
        #expect(page == #"<p title="\#(escaped)">\#(escaped)</p><i title="\#(escaped)"></i>"#)
    }

    @Test func theAxisRisesInRoundSteps() {
        for (maximum, top, step) in [(0, 4, 1), (7, 8, 2), (37, 40, 10), (1_234, 2_000, 500)] as [(Int64, Int64, Int64)] {
            let scale = InsightChart.scale(maximum)
            #expect(scale.top == top && scale.step == step, "\(maximum)")
        }
    }
}
