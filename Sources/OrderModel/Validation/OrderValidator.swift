import Foundation

/// The files of an order package other than `manifest.json` and `signature`, keyed by path relative to the package root.
public struct PackageContents: Sendable {
    /// File bytes by path: top level (`logo.png`) or in a localization folder (`fr.lproj/order.strings`).
    public var files: [String: [UInt8]]

    /// Package contents from a path-to-bytes map.
    public init(files: [String: [UInt8]]) {
        self.files = files
    }
}

/// Knobs for rules that depend on where the order is used.
public struct ValidationOptions: Sendable {
    /// Accept `http://` web service URLs with a warning (local development servers); Wallet itself requires HTTPS.
    public var allowInsecureWebServiceURL: Bool

    /// Options; the defaults are Wallet's production rules.
    public init(allowInsecureWebServiceURL: Bool = false) {
        self.allowInsecureWebServiceURL = allowInsecureWebServiceURL
    }
}

/// Validates order.json against the full Wallet Orders schema and, given the package files, everything the package
/// must hold. Reports every problem at once; never throws, crashes or hangs, whatever the input.
public enum OrderValidator {
    /// Apple's limit for a whole order package.
    public static let maximumPackageSize = 5 * 1024 * 1024
    /// Token length below which an authentication token carries less than 128 bits of randomness as base64url.
    static let recommendedTokenLength = 22

    /// Validates raw order.json bytes; when `package` is given, also checks referenced files, localizations and size.
    public static func validate(
        orderJSON: some Collection<UInt8>,
        package: PackageContents? = nil,
        options: ValidationOptions = ValidationOptions()
    ) -> ValidationReport {
        parseAndValidate(orderJSON: orderJSON, package: package, options: options).report
    }

    /// Parses and validates order.json, returning the parsed tree too (`nil` when it is not JSON).
    public static func parseAndValidate(
        orderJSON: some Collection<UInt8>,
        package: PackageContents? = nil,
        options: ValidationOptions = ValidationOptions()
    ) -> (document: JSONValue?, report: ValidationReport) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(orderJSON)
        } catch {
            return (nil, ValidationReport(problems: [ValidationProblem(path: "", message: "order.json is not valid JSON: \(error)")]))
        }
        return (document, validate(document: document, package: package, options: options))
    }

    /// Validates an already parsed order.json.
    public static func validate(
        document: JSONValue,
        package: PackageContents? = nil,
        options: ValidationOptions = ValidationOptions()
    ) -> ValidationReport {
        check(document: document, options: options).report(package: package)
    }

    /// Walks a parsed order.json along the schema once: its problems so far, and the files it references, which the
    /// caller then reads to complete the check with ``SchemaCheckedOrder/report(package:)`` or
    /// ``SchemaCheckedOrder/validated(package:)`` without walking again.
    public static func check(document: JSONValue, options: ValidationOptions = ValidationOptions()) -> SchemaCheckedOrder {
        WorkTally.count(.schemaWalk)
        var walker = SchemaWalker(options: options)
        walker.check(document, against: .object(OrderSchema.order), at: "")
        if document.objectValue != nil { checkCrossFieldRules(document, walker: &walker) }
        return SchemaCheckedOrder(document: document, walker: walker)
    }

    /// Apple deprecated `payment.status`, `paymentMethods` and `applePayTransactionIdentifiers` for entries of
    /// `payment.transactions[]`. Under schemaVersion 1 the status stays required (iOS 16 needs it); under 2 it may go.
    private static func checkPaymentVersion(_ order: JSONValue, walker: inout SchemaWalker) {
        let version = order["schemaVersion"]?.numberLiteral.flatMap(Int.init)
        let transactionsOnly = version == OrderSchema.transactionsOnlyVersion
        if transactionsOnly {
            walker.warning("schemaVersion", "2 needs iOS 17 or later: iOS 16 shows only schemaVersion 1 orders")
        }
        guard let payment = order["payment"]?.objectValue else { return }
        if payment["status"] == nil, !transactionsOnly {
            walker.error(
                "payment.status",
                "missing required key; Payment requires status under schemaVersion 1 (under schemaVersion 2, for iOS 17 and later, the state comes from payment.transactions[])"
            )
        }
        if transactionsOnly, payment["status"] != nil {
            walker.warning("payment.status", "is deprecated by Apple; under schemaVersion 2 leave it out and give payment.transactions[].status")
        }
        if payment["paymentMethods"] != nil {
            walker.warning(
                "payment.paymentMethods", "is deprecated by Apple; name each transaction's method in payment.transactions[].paymentMethod.displayName"
            )
        }
        if payment["applePayTransactionIdentifiers"] != nil {
            walker.warning(
                "payment.applePayTransactionIdentifiers",
                "is deprecated by Apple; give each transaction's identifier in payment.transactions[].applePayTransactionIdentifier")
        }
    }

    private static func checkCrossFieldRules(_ order: JSONValue, walker: inout SchemaWalker) {
        checkPaymentVersion(order, walker: &walker)
        if let created = order["createdAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339),
            let updated = order["updatedAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339), updated < created
        {
            walker.error(
                "updatedAt", "must not be earlier than createdAt; it equals createdAt until the first update and increases with every change")
        }
        let token = order["authenticationToken"]?.stringValue
        if order["webServiceURL"] != nil, token == nil {
            walker.error("authenticationToken", "missing; an order with a webServiceURL needs an authenticationToken of at least 16 characters")
        }
        if let token, token.count >= 16, token.count < recommendedTokenLength {
            walker.warning("authenticationToken", "has only \(token.count) characters; use at least 128 random bits (22 base64url characters)")
        }
        if token != nil, order["webServiceURL"] == nil {
            walker.warning("webServiceURL", "missing; without it Wallet never asks for updates, so the authenticationToken is unused")
        }
        for (index, fulfillment) in (order["fulfillments"]?.arrayValue ?? []).enumerated() {
            let path = "fulfillments[\(index)]"
            if fulfillment["estimatedDeliveryWindowDuration"] != nil, fulfillment["estimatedDeliveryAt"] == nil {
                walker.error("\(path).estimatedDeliveryWindowDuration", "needs estimatedDeliveryAt, the start of the window")
            }
            if fulfillment["pickupWindowDuration"] != nil, fulfillment["pickupAt"] == nil {
                walker.error("\(path).pickupWindowDuration", "needs pickupAt, the start of the window")
            }
        }
    }
}
