import Foundation
import OrderModel
import Testing

/// Regression tests for the findings of the security audit of 2026-11-22 (C1, H1, H2), with the audit's worst
/// inputs scaled to the server's 4 MiB body limit. Serialized, so the timed tests do not compete with each other.
@Suite(.serialized) struct AuditFindingTests {
    /// Far above what the linear code needs on a loaded debug build, far below what the quadratic code needed
    /// (hours for H1, minutes for H2 at these sizes). Timings leave out parsing the body, which was never at fault.
    /// Measured in this thread's CPU time, not wall-clock time: other processes on the machine do not count, but a
    /// slower CPU does (on 2026-12-01 the machine ran about three times slower than usual, and the linear code took up
    /// to 3.4 s).
    static let timeLimit: Duration = .seconds(8)

    func elapsed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        func cpuTime() -> Duration {
            var spec = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
            return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
        }
        let start = cpuTime()
        let result = try body()
        return (result, cpuTime() - start)
    }

    // MARK: C1: HTTP-date parsing trapped on integer overflow

    @Test func testC1_rfc850DateWithNineteenDigitYearIsRejected() {
        #expect(HTTPDate.parse("Sunday, 06-Nov-9223372036854775807 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sunday, 06-Nov-99999999999999999999999 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sunday, 06-Nov--9223372036854775808 08:49:37 GMT") == nil)
    }

    @Test func testC1_hostileAndOverlongDatesAreRejected() {
        let valid = "Sun, 06 Nov 1994 08:49:37 GMT"
        let hostile = [
            "Sun, 06 Nov 99999999999999 08:49:37 GMT",
            "Sun, 06 Nov 9223372036854775807 08:49:37 GMT",
            "Sun, 9223372036854775807 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 9223372036854775807:49:37 GMT",
            "Sun Nov 9223372036854775807 08:49:37 1994",
            "Sun Nov  6 08:49:37 9223372036854775807",
            "Sunday, 9223372036854775807-Nov-94 08:49:37 GMT",
            "Sunday, 06-Nov-994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 nov 1994 08:49:37 GMT",
            "sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 0000 08:49:37 GMT",
            "Sun, 00 Nov 1994 08:49:37 GMT",
            "Sun, 31 Feb 2026 08:49:37 GMT",
            "Sun, 29 Feb 2023 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov 1994 08:49:61 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT x",
            "Sun,  06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT\u{0}",
            "Sun, 06 Nov 1994 08:49:37 GMT".replacingOccurrences(of: "1994", with: "１９９４"),
            "Sunday, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06-Nov-94 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994",
            "Sun Nov   6 08:49:37 1994",
            "",
            " ",
            "0",
            "2147483647",
            "garbage",
            String(repeating: " ", count: 65) + valid,
            valid + String(repeating: " ", count: 65),
            valid.replacingOccurrences(of: "1994", with: String(repeating: "9", count: 100_000)),
            String(repeating: "Sun, ", count: 100_000),
        ]
        for text in hostile {
            #expect(HTTPDate.parse(text) == nil, "\(text.prefix(80))")
        }
        var generator = FuzzTests.SeededGenerator(state: 0xC1)
        let alphabet = Array(" ,-:0123456789GMTSunMonTueWedThuFriSatdayJanFebMarAprMayJunJulAugSepOctNovDec".utf8)
        for _ in 0..<10_000 {
            let length = Int.random(in: 0...80, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(HTTPDate.parse(String(decoding: bytes, as: UTF8.self)) == nil, "\(bytes)")
            // Strings of date characters, and valid dates with a field replaced by random digits, may happen to be
            // valid; they must never trap, and a date they yield must format back to an equal date.
            let shuffled = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            var mutated = Array(valid.utf8)
            let position = Int.random(in: 0..<mutated.count, using: &generator)
            mutated.replaceSubrange(
                position..<position, with: (0..<Int.random(in: 1...30, using: &generator)).map { _ in UInt8.random(in: 48...57, using: &generator) })
            for text in [shuffled, String(decoding: mutated, as: UTF8.self)] {
                if let date = HTTPDate.parse(text) {
                    #expect(HTTPDate.parse(HTTPDate.format(date)) == date, "\(text)")
                }
            }
        }
    }

    @Test func testC1_formatRoundTripsThroughParseForManyDates() throws {
        var generator = FuzzTests.SeededGenerator(state: 0xDA7E)
        let first = -62_135_596_800.0 // 0001-01-01T00:00:00Z
        let last = 253_402_300_799.0 // 9999-12-31T23:59:59Z
        let recent = 0.0...4_102_444_800.0 // 1970 to 2100, where real Last-Modified values are
        for round in 0..<20_000 {
            let seconds = round.isMultiple(of: 2) ? Double.random(in: first...last, using: &generator) : Double.random(in: recent, using: &generator)
            let date = Date(timeIntervalSince1970: seconds)
            let whole = Date(timeIntervalSince1970: seconds.rounded(.down))
            let text = HTTPDate.format(date)
            #expect(text.utf8.count == 29, "\(text)")
            #expect(HTTPDate.parse(text) == whole, "\(seconds) → \(text)")
        }
        #expect(HTTPDate.format(Date(timeIntervalSince1970: first)) == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: last)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        // Dates an IMF-fixdate cannot express are clamped instead of trapping or printing a five-digit year.
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1e300)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1e300)) == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .infinity)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .nan)) == "Mon, 01 Jan 0001 00:00:00 GMT")
    }

    @Test func httpDatesInTheThreeFormsStillParse() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("Sun Nov 06 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\t") == expected, "whitespace around the value is not part of it")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:60 GMT") == expected.addingTimeInterval(22), "a leap second reads as :59")
        // Two-digit RFC 850 years: below 70 in this century, the rest in the last one.
        #expect(HTTPDate.parse("Friday, 01-Jan-49 00:00:00 GMT") == Date(timeIntervalSince1970: 2_493_072_000))
        #expect(HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Fri Jan  1 00:00:00 2100") == Date(timeIntervalSince1970: 4_102_444_800))
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 12:00:00 GMT") == Date(timeIntervalSince1970: 1_709_208_000))
        #expect(HTTPDate.parse("Sat, 01 Jan 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 946_684_800))
    }

    // MARK: H1: amount normalisation was quadratic in the number of trailing zeros

    /// `"42."` followed by `zeros` zeros: the audit's input, as a JSON number literal.
    static func amountWithTrailingZeros(_ zeros: Int) -> String { "42." + String(repeating: "0", count: zeros) }

    @Test func testH1_amountWithFourMillionTrailingZerosIsRejectedInLinearTime() throws {
        let literal = Self.amountWithTrailingZeros(4_000_000)
        // The order as the merchant API receives it: a body just under 4 MiB.
        var order = Fixtures.minimalOrder
        order["payment"] = ["total": ["amount": .number(literal), "currency": "USD"], "status": "paid"]
        let body = order.serialized()
        #expect(body.count < 4 * 1024 * 1024)
        let document = try JSONValue.parse(body)
        // What the server does with a new order: collect the referenced files, validate, build the document.
        let (report, duration) = elapsed {
            _ = OrderValidator.check(document: document, options: ValidationOptions(allowInsecureWebServiceURL: true)).referencedFiles
            let report = OrderValidator.validate(document: document)
            #expect(throws: OrderDecodingError.self) { try OrderDocument(json: document) }
            return report
        }
        #expect(
            report.errors == [
                ValidationProblem(
                    path: "payment.total.amount",
                    message: "has 4000003 characters, but an amount may have at most 32 (sign, digits and decimal point); write it like 12.50")
            ])
        #expect(duration < Self.timeLimit, "validation took \(duration)")

        // The amount functions themselves stay linear, whoever calls them.
        let (normalized, normalizing) = elapsed { Amount.normalized(literal, currency: "USD") }
        #expect(normalized == "42.00")
        #expect(normalizing < Self.timeLimit, "normalized took \(normalizing)")
        let (fraction, counting) = elapsed { Amount.fractionDigits(literal) }
        #expect(fraction == 4_000_000)
        #expect(counting < Self.timeLimit, "fractionDigits took \(counting)")
        #expect(Amount.normalized(literal + "1", currency: "USD") == nil)
        #expect(Amount.decimalText(literal) == literal)
        #expect(Amount.decimal(literal) == nil, "longer than Amount.maximumLength")
    }

    @Test func testH1_amountLiteralsAreCappedAtThirtyTwoCharacters() throws {
        func problems(amount: JSONValue, currency: String = "USD") -> [ValidationProblem] {
            var order = Fixtures.minimalOrder
            order["payment"] = ["total": ["amount": amount, "currency": .string(currency)], "status": "paid"]
            return OrderValidator.validate(document: order).errors
        }
        // The largest magnitude (audit L20), written with as many trailing zeros as fit.
        let longest = "-9223372036854775.807" + String(repeating: "0", count: 11)
        #expect(longest.utf8.count == Amount.maximumLength)
        #expect(problems(amount: .number(longest), currency: "CLF").isEmpty)
        #expect(problems(amount: .string(longest), currency: "CLF").isEmpty)
        #expect(Amount.decimal(longest) == Decimal(string: longest))
        let tooLong = longest + "0"
        for amount: JSONValue in [.number(tooLong), .string(tooLong), .number("1" + String(repeating: "0", count: 40) + "e5")] {
            let count = (amount.numberLiteral ?? amount.stringValue!).utf8.count
            #expect(
                problems(amount: amount, currency: "CLF") == [
                    ValidationProblem(
                        path: "payment.total.amount",
                        message: "has \(count) characters, but an amount may have at most 32 (sign, digits and decimal point); write it like 12.50")
                ])
        }
        // Short amounts keep their precise findings.
        #expect(
            problems(amount: .number("12.505")) == [
                ValidationProblem(
                    path: "payment.total.amount", message: "12.505 has 3 decimal places, but USD has 2; round the amount")
            ])
        #expect(problems(amount: .number("12.5000000000000000000000000000")).isEmpty, "trailing zeros are not precision")
        let amountSchema = OrderSchema.jsonSchema()["$defs"]?["CurrencyAmount"]?["properties"]?["amount"]
        #expect(amountSchema?["oneOf"]?.arrayValue?[1]["maxLength"] == .integer(Amount.maximumLength), "published in the JSON Schema")
    }

    // MARK: H2: merging identified arrays in a PATCH was quadratic

    /// A PATCH body adding `count` fulfillments, one per identifier, as the merchant API receives it.
    static func patchBody(fulfillments count: Int, duplicating duplicate: Int? = nil) -> [UInt8] {
        var text = #"{"fulfillments":["#
        for position in 0..<count {
            if position > 0 { text += "," }
            text += #"{"fulfillmentIdentifier":"\#(position == count - 1 ? duplicate ?? position : position)"}"#
        }
        return Array((text + "]}").utf8)
    }

    @Test func testH2_patchWithOneHundredTwentyThousandFulfillmentsIsRejectedInLinearTime() throws {
        let body = Self.patchBody(fulfillments: 120_000)
        #expect(body.count < 4 * 1024 * 1024)
        let patch = try JSONValue.parse(body)
        let (report, duration) = try elapsed {
            let patched = try OrderPatch.apply(patch, to: Fixtures.fullOrder)
            #expect(patched["fulfillments"]?.arrayValue?.count == 120_002)
            return OrderValidator.validate(document: patched)
        }
        #expect(report.errors == [ValidationProblem(path: "fulfillments", message: "has 120002 elements, but at most 250 are allowed")])
        #expect(duration < Self.timeLimit, "patch and validation took \(duration)")
    }

    @Test func testH2_duplicateIdentifierInOnePatchIsRejected() throws {
        let patch: JSONValue = [
            "fulfillments": [
                ["fulfillmentIdentifier": "ship-1", "status": "delivered"],
                ["fulfillmentIdentifier": "x", "fulfillmentType": "shipping", "status": "open"],
                ["fulfillmentIdentifier": "pick-1", "status": "pickedUp"],
                ["fulfillmentIdentifier": "x", "status": "processing"],
            ]
        ]
        #expect(
            throws: OrderPatchError(
                path: "fulfillments[3].fulfillmentIdentifier",
                message: "\"x\" appears more than once in this patch (first at fulfillments[1]); send each fulfillmentIdentifier once")
        ) {
            try OrderPatch.apply(patch, to: Fixtures.fullOrder)
        }
        #expect(
            throws: OrderPatchError(
                path: "returns[1].returnIdentifier",
                message: "\"ret-1\" appears more than once in this patch (first at returns[0]); send each returnIdentifier once")
        ) {
            try OrderPatch.apply(["returns": [["returnIdentifier": "ret-1"], ["returnIdentifier": "ret-1"]]], to: Fixtures.fullOrder)
        }
        // At the end of a 4 MiB patch the duplicate is still found at once.
        let hugePatch = try JSONValue.parse(Self.patchBody(fulfillments: 120_000, duplicating: 0))
        let (thrown, duration) = elapsed {
            #expect(throws: OrderPatchError.self) { try OrderPatch.apply(hugePatch, to: Fixtures.fullOrder) }
        }
        #expect(thrown?.path == "fulfillments[119999].fulfillmentIdentifier")
        #expect(duration < Self.timeLimit, "patch took \(duration)")
    }

    @Test func identifiedMergeKeepsOrderAndUpdatesInPlace() throws {
        let patch: JSONValue = [
            "fulfillments": [
                ["fulfillmentIdentifier": "new-1", "fulfillmentType": "shipping", "status": "open"],
                ["fulfillmentIdentifier": "pick-1", "status": "pickedUp"],
                ["fulfillmentIdentifier": "new-2", "fulfillmentType": "pickup", "displayName": "Kiosk", "status": "open"],
                ["fulfillmentIdentifier": "ship-1", "status": "delivered"],
            ]
        ]
        let fulfillments = try #require(try OrderPatch.apply(patch, to: Fixtures.fullOrder)["fulfillments"]?.arrayValue)
        #expect(fulfillments.map { $0["fulfillmentIdentifier"] } == ["ship-1", "pick-1", "new-1", "new-2"])
        #expect(fulfillments.map { $0["status"] } == ["delivered", "pickedUp", "open", "open"])
        #expect(fulfillments[0]["carrier"] == "UPS", "updated elements keep their other keys")
    }

    @Test(arguments: [
        ("fulfillments", OrderSchema.maximumFulfillments),
        ("returns", OrderSchema.maximumReturns),
        ("lineItems", OrderSchema.maximumLineItems),
        ("fulfillments[0].lineItems", OrderSchema.maximumLineItems),
        ("fulfillments[1].lineItems", OrderSchema.maximumLineItems),
        ("returns[0].lineItems", OrderSchema.maximumLineItems),
        ("payment.transactions", OrderSchema.maximumTransactions),
        ("payment.applePayTransactionIdentifiers", OrderSchema.maximumTransactions),
        ("payment.summaryItems", OrderSchema.maximumSummaryItems),
        ("payment.paymentMethods", OrderSchema.maximumPaymentMethods),
        ("associatedApplications", OrderSchema.maximumAssociatedApplications),
        ("associatedApplicationIdentifiers", OrderSchema.maximumAssociatedApplications),
        ("merchant.address.addressLines", OrderSchema.maximumAddressLines),
        ("fulfillments[1].address.addressLines", OrderSchema.maximumAddressLines),
    ])
    func testH2_arrayLengthsAreCapped(path: String, maximum: Int) throws {
        let order = Fixtures.fullOrder
        let dottedPath = path.replacingOccurrences(of: "[", with: ".").replacingOccurrences(of: "]", with: "")
        let template = try #require(Self.value(at: dottedPath, in: order)?.arrayValue?.first, "\(path) has an element to copy")
        func elements(_ count: Int) -> JSONValue {
            .array(
                (0..<count).map { position in
                    guard var object = template.objectValue else { return .string("\(template.stringValue!) \(position)") }
                    for key in ["fulfillmentIdentifier", "returnIdentifier"] where object[key] != nil { object[key] = .string("id-\(position)") }
                    return .object(object)
                })
        }
        let atLimit = OrderValidator.validate(document: order.setting(dottedPath, to: elements(maximum)))
        #expect(atLimit.isValid, "\(Fixtures.problems(atLimit))")
        let overLimit = OrderValidator.validate(document: order.setting(dottedPath, to: elements(maximum + 1)))
        #expect(overLimit.errors == [ValidationProblem(path: path, message: "has \(maximum + 1) elements, but at most \(maximum) are allowed")])
    }

    @Test func testH2_arrayCapsArePublishedInTheJSONSchema() {
        let schema = OrderSchema.jsonSchema()
        #expect(schema["properties"]?["fulfillments"]?["maxItems"] == .integer(OrderSchema.maximumFulfillments))
        #expect(schema["$defs"]?["Address"]?["properties"]?["addressLines"]?["maxItems"] == .integer(OrderSchema.maximumAddressLines))
    }

    // MARK: L20 (audit of 2026-11-24): order lookup signed wrapped numbers for quantities and prices beyond 64 bits

    @Test func l20_quantitiesAndAmountsAreCappedWhereTheLookupCanSignThem() {
        func problems(quantity: JSONValue = 1, price: JSONValue = "21.00", total: JSONValue = "21.00") -> [ValidationProblem] {
            var order = Fixtures.minimalOrder
            // Kuwaiti dinars have three minor units: the limit's thousandths are the currency's own.
            order["lineItems"] = [["title": "Coffee beans", "quantity": quantity, "price": ["amount": price, "currency": "KWD"]]]
            order["payment"] = ["total": ["amount": total, "currency": "KWD"], "status": "paid"]
            return OrderValidator.validate(document: order).errors
        }
        #expect(problems(quantity: .number("1000000000")).isEmpty)
        #expect(problems(quantity: .number("2.5")).isEmpty, "quantities may still be fractional")
        // Rows 349 and 351: 1e30 and 9.3e18 were signed as quantity 1.
        for quantity in ["1000000001", "1e30", "9.3e18"] {
            #expect(
                problems(quantity: .number(quantity)) == [
                    ValidationProblem(path: "lineItems[0].quantity", message: "must be at most 1000000000, but is \(quantity)")
                ])
        }
        // The largest amount whose thousandths fit in 64 bits, either way, as a number and as a string.
        for amount: JSONValue in [.number("9223372036854775.807"), .string("-9223372036854775.807"), .string("9223372036854775.80700")] {
            #expect(problems(price: amount, total: amount).isEmpty, "\(amount)")
        }
        // Row 350: a price with 26 integer digits was signed as 7886392056514346998.
        for literal in ["9223372036854775.808", "-9223372036854776", "99999999999999999999999999.99"] {
            let message =
                "\(literal) is too large: an amount may be at most 9223372036854775.807 either way (its thousandths must fit in a signed 64-bit integer)"
            #expect(problems(price: .string(literal)) == [ValidationProblem(path: "lineItems[0].price.amount", message: message)])
            #expect(problems(total: .number(literal)) == [ValidationProblem(path: "payment.total.amount", message: message)])
        }
        let schema = OrderSchema.jsonSchema()["$defs"]?["LineItem"]?["properties"]?["quantity"]
        #expect(schema?["maximum"] == .number("1000000000"), "published in the JSON Schema")
    }

    static func value(at dottedPath: String, in document: JSONValue) -> JSONValue? {
        var value: JSONValue? = document
        for component in dottedPath.split(separator: ".") {
            if let index = Int(component), let elements = value?.arrayValue {
                value = elements.indices.contains(index) ? elements[index] : nil
            } else {
                value = value?[String(component)]
            }
        }
        return value
    }
}
