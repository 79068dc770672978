import OrderModel

/// Why an operation on orders, order types, assets or devices failed, in the terms of the domain rather than HTTP.
///
/// The ``code`` says what went wrong and is what callers match on (`==` compares codes only); ``reason`` says it in
/// words, with the values involved and how to fix it. The HTTP edge maps each code to a status once
/// (`APIError(answering:)`); the same errors reach the `ordertrack` commands.
public struct OrderTrackError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong. Extensible: new codes are new static members, never a source-breaking enum case.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable snake_case name, for logs and messages.
        public let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        /// A body that is not JSON.
        public static let invalidJSON = Code("invalid_json")
        /// Order content that is not a JSON object.
        public static let contentNotObject = Code("body_not_object")
        /// An `orderIdentifier` that breaks ``Identifiers/rule``.
        public static let invalidOrderIdentifier = Code("invalid_order_identifier")
        /// A `webServiceURL` other than this server's.
        public static let webServiceURLFixed = Code("web_service_url_fixed")
        /// An `orderTypeIdentifier` that is not a string.
        public static let invalidOrderType = Code("invalid_order_type")
        /// No order type named, and the merchant has none or several.
        public static let orderTypeRequired = Code("order_type_required")
        /// Order content without the identifiers and dates every order has.
        public static let incompleteOrder = Code("order_incomplete")
        /// Order content that breaks the schema or the package rules; ``OrderTrackError/problems`` lists every problem.
        public static let invalidOrder = Code("order_invalid")
        /// A patch that cannot be applied (an immutable field, a malformed element).
        public static let invalidPatch = Code("patch_invalid")
        /// A list cursor this server did not issue.
        public static let invalidCursor = Code("cursor_invalid")
        /// An asset that is neither an image, a PDF nor a localization.
        public static let invalidAssetType = Code("asset_type_invalid")
        /// A `.strings` asset that does not parse.
        public static let invalidStrings = Code("strings_invalid")
        /// A merchant name that is empty or too long.
        public static let invalidMerchantName = Code("merchant_name_invalid")
        /// An order type configuration that was refused (identifier, signing identity, APNs key or owner).
        public static let orderTypeRejected = Code("order_type_rejected")
        /// An order type upload without its signing identity (the base64 PKCS#12 file).
        public static let pkcs12Missing = Code("pkcs12_missing")
        /// An order type upload whose PKCS#12 file is larger than a signing identity can be.
        public static let pkcs12TooLarge = Code("pkcs12_too_large")
        /// An APNs key upload without the text of the `.p8` file.
        public static let p8Missing = Code("p8_missing")
        /// An APNs key upload larger than a `.p8` key can be.
        public static let p8TooLarge = Code("p8_too_large")
        /// An order type another merchant owns, or none configures.
        public static let orderTypeNotOwned = Code("order_type_not_owned")
        /// No such order, asset or merchant for this caller.
        public static let notFound = Code("not_found")
        /// An order with this identifier exists already.
        public static let orderExists = Code("order_exists")
        /// An update conditioned on a version (`If-Match`) that is no longer the order's current one.
        public static let versionMismatch = Code("order_version_mismatch")
        /// Another order of the type has this order number.
        public static let orderNumberExists = Code("order_number_exists")
        /// An update lost the race for the order's version too many times.
        public static let updateContention = Code("update_contention")
        /// An idempotency key sent again with a different request.
        public static let idempotencyKeyReused = Code("idempotency_key_reused")
        /// An order type whose configuration is missing: the server cannot sign its packages.
        public static let orderTypeMissing = Code("order_type_missing")
        /// An order type whose signing identity cannot be loaded.
        public static let signingIdentityUnusable = Code("signing_identity_unusable")
        /// A payment-processing certificate or key that was refused (unreadable, mismatched, another merchant's).
        public static let invalidPaymentIdentity = Code("invalid_payment_identity")
        /// A Merchant Identity configuration that was refused (PKCS#12, identifier, display name, domains).
        public static let invalidMerchantIdentity = Code("invalid_merchant_identity")
        /// An Apple Pay transaction that already created an order with a different order body.
        public static let paymentAlreadyUsed = Code("payment_already_used")
        /// Merchant validation without a usable Merchant Identity certificate.
        public static let applePayNotConfigured = Code("apple_pay_not_configured")
        /// A validation URL that is not one of Apple's payment gateways: nothing is connected to.
        public static let validationURLNotAllowed = Code("validation_url_not_allowed")
        /// A domain the merchant did not register for merchant validation.
        public static let domainNotRegistered = Code("domain_not_registered")
        /// Apple's payment gateway failed, timed out or refused the session request.
        public static let applePayGatewayFailed = Code("apple_pay_gateway_failed")
        /// A push in development mode whose order type has a development identity, which Apple's APNs refuses.
        public static let developmentIdentityNotSent = Code("development_identity_not_sent")
        /// An order type whose credential cannot authenticate to APNs.
        public static let apnsCredentialUnusable = Code("apns_credential_unusable")
        /// Merchant order defaults that Wallet would refuse (a URL that is not https, an unknown fulfillment type).
        public static let invalidOrderDefaults = Code("order_defaults_invalid")
        /// An authentication token that several orders share, sent where it alone must name the order.
        public static let ambiguousAuthenticationToken = Code("authentication_token_ambiguous")
        /// A wallet link lifetime out of range.
        public static let invalidWalletLink = Code("wallet_link_invalid")
        /// A lookup key request with a malformed bundle id or issuer id.
        public static let invalidLookupKey = Code("lookup_key_invalid")
        /// An API key request with a bad name, scope, order type or expiry.
        public static let invalidAPIKey = Code("api_key_invalid")
        /// A carrier connection request with an unknown provider, a missing secret, a JWKS URL off the allow-list or a
        /// bad status map.
        public static let invalidCarrierConnection = Code("carrier_connection_invalid")
        /// A webhook endpoint request with a URL the server may not send to, an unknown event type, or one endpoint
        /// more than a merchant may have.
        public static let invalidWebhookEndpoint = Code("webhook_endpoint_invalid")
        /// A line of a bulk update that is not an update: not JSON, no order named, no patch, a bad `ifMatch`.
        public static let invalidBulkLine = Code("bulk_line_invalid")
        /// A bulk update with more lines than one request may carry.
        public static let bulkTooLarge = Code("bulk_too_large")
        /// An API key used for an order type it is not limited to.
        public static let orderTypeNotAllowed = Code("order_type_not_allowed")
        /// A change of an order that the API key's scopes do not cover (a fulfillments-only key changing the status).
        public static let changeNotAllowed = Code("change_not_allowed")
    }

    /// What went wrong.
    public let code: Code
    /// What went wrong in words, with the values involved.
    public let reason: String
    /// The field of the input at fault (`orderIdentifier`, `fulfillments[0].status`), if one is.
    public let field: String?
    /// Every validation problem of order content (``Code/invalidOrder``), warnings included.
    public let problems: [ValidationProblem]
    /// Facts a caller acts on, beside the message (``Code/versionMismatch``: the current version and its last change).
    public let details: [String: JSONValue]

    /// An error with a code, its reason in words, and optionally the field at fault and the validation problems.
    public init(_ code: Code, _ reason: String, field: String? = nil, problems: [ValidationProblem] = [], details: [String: JSONValue] = [:]) {
        self.code = code
        self.reason = reason
        self.field = field
        self.problems = problems
        self.details = details
    }

    /// A body that does not parse as JSON, with the parser's line, column and reason.
    static func invalidJSON(_ error: JSONParseError) -> OrderTrackError {
        OrderTrackError(.invalidJSON, "the body is not valid JSON: \(error)")
    }

    /// Order content with problems: the reason counts the errors and names the first three, the field is the first's.
    public static func invalidOrder(_ problems: [ValidationProblem]) -> OrderTrackError {
        let errors = problems.filter { $0.severity == .error }
        let summary = errors.prefix(3).map(\.description).joined(separator: "; ")
        return OrderTrackError(
            .invalidOrder,
            "the order is invalid (\(errors.count) problem\(errors.count == 1 ? "" : "s")): \(summary)\(errors.count > 3 ? "; …" : "")",
            field: errors.first?.path, problems: problems)
    }

    public var description: String { reason }

    public static func == (lhs: OrderTrackError, rhs: OrderTrackError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
