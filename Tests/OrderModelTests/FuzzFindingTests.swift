import Foundation
import OrderModel
import Testing

/// Inputs the libFuzzer targets (scripts/fuzz) found, kept as regression tests.
@Suite struct FuzzFindingTests {
    @Test func aDateBefore1970FormatsToTheMillisecondItWasGiven() throws {
        let date = try #require(DateTimeFormat.parseRFC3339("1969-12-31T23:59:59.51z"))
        #expect(DateTimeFormat.formatRFC3339(date) == "1969-12-31T23:59:59.510Z")
        for text in ["1969-12-31T23:59:59.001Z", "1900-01-01T00:00:00.999Z", "2026-11-23T09:59:59.999Z", "2026-11-23T10:00:00.000Z"] {
            #expect(DateTimeFormat.formatRFC3339(try #require(DateTimeFormat.parseRFC3339(text))) == text)
        }
    }

    @Test func aURIIsAcceptedOnlyWhenFoundationReadsItAsAURL() {
        // The typed model decodes these as URL: a validated order must never fail to decode.
        #expect(!TextFormat.isAbsoluteURI("shop://o:rders/104"))
        #expect(!TextFormat.isAbsoluteURI("https://shop.exam[0e.com/returns"))
        #expect(TextFormat.isAbsoluteURI("https://shop.example.com:8443/returns?order=1#top"))
        #expect(TextFormat.isAbsoluteURI("mailto:support@example.com"))
        #expect(TextFormat.isAbsoluteURI("shop://orders/104"))
    }
}
