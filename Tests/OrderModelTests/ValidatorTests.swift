import OrderModel
import Testing

@Suite struct ValidatorTests {
    func validate(_ document: JSONValue, files: [String: [UInt8]]? = nil, options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        OrderValidator.validate(document: document, package: files.map(PackageContents.init(files:)), options: options)
    }

    /// Asserts exactly one error at `path` whose message contains `fragment`.
    func expectError(
        _ document: JSONValue, at path: String, containing fragment: String, files: [String: [UInt8]]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let report = validate(document, files: files)
        let matches = report.errors.filter { $0.path == path && $0.message.contains(fragment) }
        #expect(
            matches.count == 1, "expected an error at \(path) containing \"\(fragment)\"; got:\n\(Fixtures.problems(report))",
            sourceLocation: sourceLocation)
    }

    @Test func fullAndMinimalOrdersAreValid() {
        let full = validate(Fixtures.fullOrder, files: Fixtures.fullOrderFiles)
        // The full order also has Apple's deprecated payment keys: valid, each with a warning naming its replacement.
        #expect(full.errors.isEmpty, "\(Fixtures.problems(full))")
        #expect(Set(full.problems.map(\.path)) == ["payment.paymentMethods", "payment.applePayTransactionIdentifiers"], "\(Fixtures.problems(full))")
        let minimal = validate(Fixtures.minimalOrder)
        #expect(minimal.problems.isEmpty, "\(Fixtures.problems(minimal))")
    }

    /// schemaVersion 2 (iOS 17 and later) lets the deprecated payment.status go; version 1 keeps it required.
    @Test func schemaVersionTwoMakesThePaymentStatusOptional() throws {
        var order = Fixtures.minimalOrder
        order["payment"] = [
            "total": ["amount": 42, "currency": "USD"],
            "transactions": [
                [
                    "amount": ["amount": 42, "currency": "USD"], "createdAt": "2026-11-01T10:00:00Z", "paymentMethod": ["displayName": "Visa 1234"],
                    "status": "completed", "transactionType": "purchase",
                ]
            ],
        ]
        expectError(order, at: "payment.status", containing: "under schemaVersion 1")
        order["schemaVersion"] = 2
        let two = validate(order)
        #expect(two.isValid, "\(Fixtures.problems(two))")
        #expect(two.problems.contains { $0.path == "schemaVersion" && $0.severity == .warning && $0.message.contains("iOS 16") })
        order["payment"]?["status"] = "paid"
        #expect(validate(order).warnings.contains { $0.path == "payment.status" && $0.message.contains("transactions[].status") })
        order["schemaVersion"] = 3
        expectError(order, at: "schemaVersion", containing: "at most 2")
        let decoded = try OrderDocument(json: order.setting("schemaVersion", to: 2).setting("payment.status", to: nil))
        #expect(decoded.order.schemaVersion == 2 && decoded.order.payment?.status == nil && decoded.order.payment?.transactions?.count == 1)
    }

    /// Apple's localization example writes `"quantity": "2"`: a decimal string is read as the number, with a warning,
    /// and stored as a number; anything else a string might hold stays an error.
    @Test func aQuantityWrittenAsAStringIsReadAsTheNumber() throws {
        var order = Fixtures.minimalOrder
        order["lineItems"] = [["title": "Coffee", "quantity": "2"]]
        let report = validate(order)
        #expect(report.isValid, "\(Fixtures.problems(report))")
        #expect(report.warnings.contains { $0.path == "lineItems[0].quantity" && $0.message.contains("stored as 2") })
        let normalized = OrderNormalizer.normalize(order, node: .object(OrderSchema.order))
        #expect(normalized["lineItems"]?.arrayValue?.first?["quantity"] == .number("2"))
        #expect(try OrderDocument(json: order).order.lineItems?.first?.quantity == 2)
        for bad in ["0x10", "inf", " 2", "2.", "two", "02"] {
            expectError(
                order.setting("lineItems", to: [["title": "Coffee", "quantity": .string(bad)]]), at: "lineItems[0].quantity",
                containing: "must be a number")
        }
        expectError(order.setting("lineItems", to: [["title": "Coffee", "quantity": "-1"]]), at: "lineItems[0].quantity", containing: "at least 0")
    }

    /// A fulfillment without (or with a wrong) fulfillmentType still has the members both kinds share checked.
    @Test func aFulfillmentWithoutItsTypeStillHasItsStatusChecked() {
        for tag: JSONValue? in [nil, "drone"] {
            var order = Fixtures.minimalOrder
            var fulfillment: JSONValue = ["fulfillmentIdentifier": "ship-1", "status": "shiped"]
            fulfillment["fulfillmentType"] = tag
            order["fulfillments"] = [fulfillment]
            let report = validate(order)
            #expect(report.errors.contains { $0.path == "fulfillments[0].fulfillmentType" }, "\(Fixtures.problems(report))")
            let status = report.errors.filter { $0.path == "fulfillments[0].status" }
            #expect(
                status.count == 1 && status[0].message.contains("shipped") && status[0].message.contains("readyForPickup"),
                "\(Fixtures.problems(report))")

            // A status either kind accepts is no error.
            order["fulfillments"] = [["fulfillmentIdentifier": "ship-1", "status": "readyForPickup"]]
            #expect(!validate(order).errors.contains { $0.path == "fulfillments[0].status" })
        }
    }

    @Test func reportsEveryMissingRequiredKeyAtOnce() {
        let report = validate([:])
        let required = [
            "schemaVersion", "orderTypeIdentifier", "orderIdentifier", "orderType", "createdAt", "updatedAt", "status", "merchant",
            "orderManagementURL",
        ]
        #expect(Set(report.errors.map(\.path)) == Set(required))
        #expect(report.errors.allSatisfy { $0.message.contains("missing required key") })
    }

    @Test(arguments: [
        ("merchant.displayName", "Merchant requires displayName"),
        ("merchant.url", "Merchant requires url"),
        ("lineItems.0.title", "LineItem requires title"),
        ("lineItems.0.quantity", "LineItem requires quantity"),
        ("payment.total", "Payment requires total"),
        ("payment.status", "Payment requires status"),
        ("payment.transactions.0.paymentMethod", "PaymentTransaction requires paymentMethod"),
        ("fulfillments.1.displayName", "PickupFulfillment requires displayName"),
        ("returns.0.returnIdentifier", "Return requires returnIdentifier"),
        ("returnInfo.returnPolicyURL", "ReturnInfo requires returnPolicyURL"),
        ("orderProvider.url", "OrderProvider requires url"),
        ("barcode.message", "Barcode requires message"),
        ("fulfillments.1.location.latitude", "Location requires latitude"),
    ])
    func nestedRequiredKeys(path: String, message: String) {
        let reported = path.replacingOccurrences(of: ".0.", with: "[0].").replacingOccurrences(of: ".1.", with: "[1].")
        expectError(Fixtures.fullOrder.setting(path, to: nil), at: reported, containing: message, files: Fixtures.fullOrderFiles)
    }

    @Test(arguments: [
        ("status", "shipped", "use one of \"open\", \"completed\", \"cancelled\""),
        ("status", "Open", "use \"open\""),
        ("fulfillments.0.status", "readyForPickup", "use one of"),
        ("fulfillments.1.status", "delivered", "use one of"),
        ("payment.status", "settled", "use one of"),
        ("payment.transactions.0.transactionType", "sale", "\"purchase\", \"refund\""),
        ("returns.0.status", "returned", "use one of"),
        ("barcode.format", "ean13", "\"qr\", \"pdf417\", \"aztec\", \"code128\""),
        ("changeNotifications", "disabled", "\"enabled\", \"disabledIfAppInstalled\""),
        ("fulfillments.0.shippingType", "air", "use one of"),
        ("fulfillments.0.fulfillmentType", "courier", "\"pickup\", \"shipping\""),
    ])
    func enumValues(path: String, value: String, hint: String) {
        let reported = path.replacingOccurrences(of: ".0.", with: "[0].").replacingOccurrences(of: ".1.", with: "[1].")
        expectError(Fixtures.fullOrder.setting(path, to: .string(value)), at: reported, containing: hint, files: Fixtures.fullOrderFiles)
    }

    @Test(arguments: [
        "2026-11-20", "2026-11-20 10:00:00Z", "2026-02-30T10:00:00Z", "2026-11-20T25:00:00Z", "2026-11-20T10:00:00", "20261120T100000Z",
        "2026-11-20T10:00:00+0100", "",
    ])
    func dateTimesMustBeRFC3339(value: String) {
        expectError(
            Fixtures.minimalOrder.setting("createdAt", to: .string(value)).setting("updatedAt", to: "2030-01-01T00:00:00Z"), at: "createdAt",
            containing: "RFC 3339")
    }

    @Test(arguments: ["30M", "PT", "P", "PT30", "P1H", "PT1H30", "PTM", "P1.5DT1.5H"])
    func durationsMustBeISO8601(value: String) {
        expectError(
            Fixtures.fullOrder.setting("fulfillments.1.pickupWindowDuration", to: .string(value)), at: "fulfillments[1].pickupWindowDuration",
            containing: "ISO 8601 duration", files: Fixtures.fullOrderFiles)
    }

    @Test func validDurationsAndDatesPass() {
        for duration in ["PT30M", "P1D", "P1DT2H", "P0Y0M0DT0H30M0S", "P2W", "PT0.5H", "P1Y2M3DT4H5M6.5S"] {
            #expect(DateTimeFormat.isISO8601Duration(duration), "\(duration)")
        }
        for date in ["2024-02-29T00:00:00Z", "2026-11-20T10:00:00.123456-07:30", "2026-12-31T23:59:60Z", "2026-11-20t10:00:00z"] {
            #expect(DateTimeFormat.parseRFC3339(date) != nil, "\(date)")
        }
        #expect(DateTimeFormat.parseRFC3339("2023-02-29T00:00:00Z") == nil)
    }

    @Test func webServiceURLMustBeHTTPS() {
        expectError(
            Fixtures.fullOrder.setting("webServiceURL", to: "http://orders.example.com/wallet"), at: "webServiceURL", containing: "https://",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("webServiceURL", to: "ftp://orders.example.com"), at: "webServiceURL", containing: "https://",
            files: Fixtures.fullOrderFiles)
        let development = validate(
            Fixtures.fullOrder.setting("webServiceURL", to: "http://127.0.0.1:8080/wallet"), files: Fixtures.fullOrderFiles,
            options: ValidationOptions(allowInsecureWebServiceURL: true))
        #expect(development.isValid)
        #expect(development.warnings.contains { $0.path == "webServiceURL" && $0.message.contains("local development") })
    }

    @Test(arguments: [
        "not a url", "https://exa mple.com", "shop.example.com/orders", "https:/shop.example.com", "https://shop.example.com/%zz", "https://",
    ])
    func urisMustBeAbsolute(value: String) {
        expectError(Fixtures.minimalOrder.setting("orderManagementURL", to: .string(value)), at: "orderManagementURL", containing: "absolute URI")
    }

    @Test func currencyAndCountryCodes() {
        expectError(
            Fixtures.fullOrder.setting("payment.total.currency", to: "usd"), at: "payment.total.currency", containing: "use \"USD\"",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("payment.total.currency", to: "XYZ"), at: "payment.total.currency", containing: "ISO 4217",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("merchant.address.countryCode", to: "USA"), at: "merchant.address.countryCode", containing: "ISO 3166-1",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("merchant.address.countryCode", to: "fr"), at: "merchant.address.countryCode", containing: "use \"FR\"",
            files: Fixtures.fullOrderFiles)
        #expect(ISOCodes.countries.count == 249)
    }

    @Test func amounts() {
        expectError(
            Fixtures.fullOrder.setting("payment.total.amount", to: "12,50"), at: "payment.total.amount", containing: "not a decimal amount",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("payment.total.amount", to: .number("1.005")), at: "payment.total.amount",
            containing: "3 decimal places, but USD has 2", files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("payment.total.amount", to: .number("1e3")), at: "payment.total.amount", containing: "exponent",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("payment.total.amount", to: true), at: "payment.total.amount", containing: "must be a number",
            files: Fixtures.fullOrderFiles)
        let yen = Fixtures.fullOrder.setting("payment.total", to: ["amount": .number("1500.5"), "currency": "JPY"])
        expectError(yen, at: "payment.total.amount", containing: "JPY has 0", files: Fixtures.fullOrderFiles)
        let trailingZeros = Fixtures.fullOrder.setting("payment.total.amount", to: .number("25.000"))
        #expect(validate(trailingZeros, files: Fixtures.fullOrderFiles).isValid, "trailing zeros lose nothing")
    }

    /// An App Store identifier is a whole number: the fuzzer found `123.56789` passing validation and failing to decode.
    @Test func storeIdentifiersAreWholeNumbers() throws {
        for literal in ["123.56789", "1e3", "123.0", "99999999999999999999"] {
            expectError(
                Fixtures.fullOrder.setting("associatedApplications", to: [["storeIdentifier": .number(literal)]]),
                at: "associatedApplications[0].storeIdentifier", containing: "must be a whole number", files: Fixtures.fullOrderFiles)
        }
        expectError(
            Fixtures.fullOrder.setting("associatedApplications", to: [["storeIdentifier": .number("0")]]),
            at: "associatedApplications[0].storeIdentifier", containing: "must be at least 1", files: Fixtures.fullOrderFiles)
        let whole = Fixtures.fullOrder.setting("associatedApplications", to: [["storeIdentifier": .number("123456789")]])
        #expect(validate(whole, files: Fixtures.fullOrderFiles).isValid)
        #expect(try OrderDocument(json: whole).order.associatedApplications?.first?.storeIdentifier == 123_456_789)
    }

    /// A decimal string may have leading zeros; its normalized JSON number must not (the fuzzer found `"02.5"`
    /// written as the invalid number `02.50`).
    @Test func normalizedAmountsAreValidJSONNumbers() throws {
        #expect(Amount.normalized("02.5", currency: "USD") == "2.50")
        #expect(Amount.normalized("-007", currency: "JPY") == "-7")
        #expect(Amount.normalized("000.10", currency: "USD") == "0.10")
        #expect(Amount.normalized("0", currency: "USD") == "0.00")
        #expect(Amount.normalized("-0.5", currency: "EUR") == "-0.50")
        let padded = Fixtures.fullOrder.setting("payment.total.amount", to: "02.5")
        #expect(validate(padded, files: Fixtures.fullOrderFiles).isValid)
        let document = try OrderDocument(json: padded)
        #expect(document.json["payment"]?["total"]?["amount"] == .number("2.50"))
    }

    @Test func authenticationToken() {
        expectError(
            Fixtures.fullOrder.setting("authenticationToken", to: "short"), at: "authenticationToken", containing: "at least 16 characters",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("authenticationToken", to: nil), at: "authenticationToken", containing: "needs an authenticationToken",
            files: Fixtures.fullOrderFiles)
        let weak = validate(Fixtures.fullOrder.setting("authenticationToken", to: "0123456789abcdef"), files: Fixtures.fullOrderFiles)
        #expect(weak.isValid && weak.warnings.contains { $0.path == "authenticationToken" && $0.message.contains("128 random bits") })
    }

    @Test func updatedAtMustNotPrecedeCreatedAt() {
        expectError(
            Fixtures.minimalOrder.setting("updatedAt", to: "2026-11-19T10:00:00Z"), at: "updatedAt", containing: "must not be earlier than createdAt")
        // Offsets are honoured: 10:30+01:00 is 09:30Z, before createdAt 10:00Z.
        expectError(
            Fixtures.minimalOrder.setting("updatedAt", to: "2026-11-20T10:30:00+01:00"), at: "updatedAt", containing: "earlier than createdAt")
    }

    @Test func typesConstantsRangesAndNulls() {
        expectError(Fixtures.minimalOrder.setting("schemaVersion", to: 0), at: "schemaVersion", containing: "must be at least 1")
        expectError(Fixtures.minimalOrder.setting("orderType", to: "instore"), at: "orderType", containing: "must be \"ecommerce\"")
        expectError(
            Fixtures.minimalOrder.setting("merchant", to: "Shop"), at: "merchant", containing: "must be an object (Merchant), but is a string")
        expectError(Fixtures.minimalOrder.setting("orderNumber", to: .null), at: "orderNumber", containing: "must not be null")
        expectError(
            Fixtures.fullOrder.setting("lineItems.0.quantity", to: "lots"), at: "lineItems[0].quantity", containing: "must be a number",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("fulfillments.1.location.latitude", to: .number("91")), at: "fulfillments[1].location.latitude",
            containing: "at most 90", files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("fulfillments.1.location.longitude", to: .number("-180.5")), at: "fulfillments[1].location.longitude",
            containing: "at least -180", files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("returnInfo.displayCountdown", to: "yes"), at: "returnInfo.displayCountdown", containing: "true or false",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("customer.emailAddress", to: "ada at example"), at: "customer.emailAddress", containing: "e-mail",
            files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("lineItems", to: ["title": "x"]), at: "lineItems", containing: "must be an array",
            files: Fixtures.fullOrderFiles)
    }

    @Test func identifiersMustBeUniqueAndWindowsNeedAStart() {
        expectError(
            Fixtures.fullOrder.setting("fulfillments.1.fulfillmentIdentifier", to: "ship-1"), at: "fulfillments[1].fulfillmentIdentifier",
            containing: "already used by fulfillments[0]", files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("fulfillments.0.estimatedDeliveryAt", to: nil), at: "fulfillments[0].estimatedDeliveryWindowDuration",
            containing: "needs estimatedDeliveryAt", files: Fixtures.fullOrderFiles)
        expectError(
            Fixtures.fullOrder.setting("fulfillments.1.pickupAt", to: nil), at: "fulfillments[1].pickupWindowDuration", containing: "needs pickupAt",
            files: Fixtures.fullOrderFiles)
    }

    @Test func unknownKeysAreWarningsNotErrors() {
        let report = validate(Fixtures.minimalOrder.setting("loyaltyPoints", to: 120).setting("merchant.tagline", to: "Fresh"))
        #expect(report.isValid)
        #expect(Set(report.warnings.map(\.path)) == ["loyaltyPoints", "merchant.tagline"])
        #expect(report.warnings.allSatisfy { $0.message.contains("unknown key") })
    }

    @Test func referencedFilesMustBeInThePackageWithTheRightType() {
        var files = Fixtures.fullOrderFiles
        files["logo.png"] = nil
        files["logo@2x.png"] = nil
        expectError(Fixtures.fullOrder, at: "merchant.logo", containing: "has no such file", files: files)
        files = Fixtures.fullOrderFiles
        files["label.pdf"] = Array("plain text".utf8)
        expectError(Fixtures.fullOrder, at: "returns[0].returnLabel", containing: "neither PNG, JPEG nor PDF", files: files)
        files = Fixtures.fullOrderFiles
        files["beans.png"] = Fixtures.pdf
        expectError(
            Fixtures.fullOrder, at: "lineItems[0].image", containing: "is a PDF document, but this key needs a PNG image or a JPEG image",
            files: files)
        files = Fixtures.fullOrderFiles
        files["spare.png"] = Fixtures.png
        let report = validate(Fixtures.fullOrder, files: files)
        #expect(report.isValid && report.warnings.map(\.path).filter { !$0.hasPrefix("payment.") } == ["spare.png"])
    }

    @Test func packageMustStayUnderFiveMegabytes() {
        var files = Fixtures.fullOrderFiles
        files["beans.png"] = Fixtures.png + [UInt8](repeating: 0, count: 5 * 1024 * 1024)
        expectError(Fixtures.fullOrder, at: "", containing: "less than 5 MB", files: files)
    }

    @Test func localizationsMustBeConsistent() {
        var files = Fixtures.fullOrderFiles
        files["logo.png"] = nil
        files["logo@2x.png"] = nil
        files["en.lproj/order.strings"] = Array("/* English */\n\"SHOP\" = \"Shop\";\n\"READY\" = \"Ready\";\n".utf8)
        files["fr.lproj/order.strings"] = [0xFF, 0xFE] + Array("\"SHOP\" = \"Boutique\";\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        files["en.lproj/logo.png"] = Fixtures.png
        files["fr.lproj/logo.png"] = Fixtures.png
        files["en.lproj/logo@2x.png"] = Fixtures.png
        let report = validate(Fixtures.fullOrder, files: files)
        #expect(report.errors.contains { $0.path == "fr.lproj/order.strings" && $0.message.contains("\"READY\"") }, "\(Fixtures.problems(report))")
        #expect(report.errors.contains { $0.path == "fr.lproj" && $0.message.contains("\"logo@2x.png\"") }, "\(Fixtures.problems(report))")
        #expect(!report.errors.contains { $0.path == "merchant.logo" }, "localized images satisfy references")

        files["fr.lproj/order.strings"] = Array("\"SHOP\" = \"Boutique\"\n".utf8)
        files["de_DE1.lproj/order.strings"] = Array("\"SHOP\" = \"Laden\";".utf8)
        let broken = validate(Fixtures.fullOrder, files: files)
        #expect(
            broken.errors.contains { $0.path == "fr.lproj/order.strings" && $0.message.contains("line 2: expected ';'") },
            "\(Fixtures.problems(broken))")
        #expect(broken.errors.contains { $0.path == "de_DE1.lproj" && $0.message.contains("not a language identifier") })
    }

    @Test func nearMissLocalizationKeysAreNamedAndUnusedKeysNoted() {
        let document = Fixtures.fullOrder.setting("lineItems.0.title", to: "CheesecakeSlice").setting("lineItems.0.subtitle", to: "SIZE")
        var files = Fixtures.fullOrderFiles
        files["en.lproj/order.strings"] = Array("\"CheeseCakeSlice\" = \"Cheesecake slice\";\n\"SIZE\" = \"1 kg\";\n\"OLD\" = \"x\";\n".utf8)
        files["fr.lproj/order.strings"] = Array("\"CheeseCakeSlice\" = \"Part de gâteau\";\n\"OLD\" = \"x\";\n".utf8)
        let report = validate(document, files: files)
        let warnings = report.warnings.map(\.description)
        #expect(
            warnings.contains(
                "lineItems[0].title: warning: \"CheesecakeSlice\" is not a key of en.lproj/order.strings; did you mean \"CheeseCakeSlice\"?"
            ), "\(Fixtures.problems(report))")
        #expect(
            warnings.contains(
                "lineItems[0].subtitle: warning: \"SIZE\" is a key of en.lproj/order.strings but not of fr.lproj/order.strings; "
                    + "add it there, or those languages show \"SIZE\" as is"
            ), "\(Fixtures.problems(report))")
        #expect(
            report.problems.filter { $0.severity == .note }.map(\.description) == [
                "en.lproj/order.strings: note: defines 2 key(s) that no string of order.json uses: \"CheeseCakeSlice\", \"OLD\"; remove them or use them"
            ])
        #expect(!report.problems.contains { $0.path == "lineItems[0].quantity" || $0.message.contains("\"Mug\"") }, "plain text is no key")
    }

    @Test func invalidJSONIsOneClearProblem() {
        let report = OrderValidator.validate(orderJSON: Array("{\n  \"status\": open\n}".utf8))
        #expect(report.errors.count == 1)
        #expect(report.errors[0].message.contains("line 2, column 13"), "\(report.errors[0].message)")
    }
}
