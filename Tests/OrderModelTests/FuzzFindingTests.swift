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

    /// The last instant of year 9999, given to a tenth of a millisecond, rounded into "10000-01-01", which no RFC 3339
    /// parser reads: the formatter now stays within four year digits.
    @Test func aDateJustBeforeYearTenThousandFormatsWithinIt() throws {
        let date = try #require(DateTimeFormat.parseRFC3339("9999-12-31T23:59:59.99996666Z"))
        let formatted = DateTimeFormat.formatRFC3339(date)
        #expect(formatted == "9999-12-31T23:59:59.999Z")
        #expect(DateTimeFormat.parseRFC3339(formatted) != nil)
        #expect(DateTimeFormat.formatRFC3339(try #require(DateTimeFormat.parseRFC3339("9999-12-31T23:59:59.999Z"))) == "9999-12-31T23:59:59.999Z")
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
