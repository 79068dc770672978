/// The Wallet Orders order.json schema, as Apple documents it: schemaVersion 1, and 2 (iOS 17 and later), under which
/// the deprecated `payment.status` may be left out.
public enum OrderSchema {
    // Array caps. Apple publishes none (its documentation only bounds the whole package to 5 MB), so these are
    // generous but finite: many times what an order shown in Wallet holds, yet small enough that no document can
    // make validating, merging or rendering it expensive.
    /// Line items of the order, of a fulfillment or of a return: a very large basket, one line per product.
    public static let maximumLineItems = 500
    /// Fulfillments (shipments and pickups) of one order.
    public static let maximumFulfillments = 250
    /// Returns of one order.
    public static let maximumReturns = 250
    /// Payment transactions (charges and refunds), and the Apple Pay transaction identifiers that link them.
    public static let maximumTransactions = 250
    /// Summary items of a payment (subtotal, tax, shipping, discounts, …).
    public static let maximumSummaryItems = 100
    /// Payment methods of one payment.
    public static let maximumPaymentMethods = 20
    /// Associated apps, in order of preference, and associated application identifiers.
    public static let maximumAssociatedApplications = 20
    /// Lines of a postal address; real formats use at most about six.
    public static let maximumAddressLines = 10
    /// Largest `quantity` of a line item (audit L20). Apple publishes none; a billion units (or grams, or metres) is
    /// beyond any order a customer tracks in Wallet, and the cap keeps the whole number order lookup signs far inside
    /// 64 bits, where a larger value wrapped into another number.
    public static let maximumQuantity: Double = 1_000_000_000

    /// `Address`: a postal address.
    public static let address = ObjectSchema(
        "Address",
        [
            Property("addressLines", .array(.string(.text), uniqueBy: nil, maximumCount: maximumAddressLines)),
            Property("administrativeArea", .string(.text)),
            Property("countryCode", .string(.countryCode), "ISO 3166-1 alpha-2 country code"),
            Property("locality", .string(.text)),
            Property("postalCode", .string(.text)),
            Property("subAdministrativeArea", .string(.text)),
            Property("subLocality", .string(.text)),
        ])

    /// `Location`: coordinates of a pickup location.
    public static let location = ObjectSchema(
        "Location",
        [
            Property("latitude", .number(minimum: -90, maximum: 90), required: true),
            Property("longitude", .number(minimum: -180, maximum: 180), required: true),
            Property("altitude", .anyNumber, "meters"),
        ])

    /// `Application`: an associated app.
    public static let application = ObjectSchema(
        "Application",
        [
            Property("storeIdentifier", .integer(minimum: 1, maximum: nil), required: true, "App Store identifier (ADAM id)"),
            Property("launchURL", .string(.uri)),
            Property("customProductPageIdentifier", .string(.text)),
        ])

    /// `Barcode`.
    public static let barcode = ObjectSchema(
        "Barcode",
        [
            Property("format", .enumeration(["qr", "pdf417", "aztec", "code128"]), required: true),
            Property("message", .string(.text(minimumLength: 1)), required: true),
            Property("messageEncoding", .string(.text(minimumLength: 1)), required: true, "typically iso-8859-1"),
            Property("altText", .string(.localizable)),
        ])

    /// `CurrencyAmount`: an exact amount and its ISO 4217 currency.
    public static let currencyAmount = ObjectSchema(
        "CurrencyAmount",
        [
            Property("amount", .amount, required: true),
            Property("currency", .string(.currencyCode), required: true, "ISO 4217 currency code"),
        ])

    /// `Merchant`.
    public static let merchant = ObjectSchema(
        "Merchant",
        [
            Property("displayName", .string(.localizable), required: true),
            Property("merchantIdentifier", .string(.text(minimumLength: 1)), required: true, "Apple Pay merchant identifier"),
            Property("url", .string(.uri), required: true),
            Property("logo", .string(.fileReference(.image))),
            Property("address", .object(address)),
            Property("businessChatURL", .string(.uri)),
            Property("contactURL", .string(.uri)),
            Property("emailAddress", .string(.email)),
            Property("phoneNumber", .string(.text)),
        ])

    /// `Customer`.
    public static let customer = ObjectSchema(
        "Customer",
        [
            Property("emailAddress", .string(.email)),
            Property("familyName", .string(.text)),
            Property("givenName", .string(.text)),
            Property("organizationName", .string(.text)),
            Property("phoneNumber", .string(.text)),
        ])

    /// `LineItem`: one product.
    public static let lineItem = ObjectSchema(
        "LineItem",
        [
            Property("title", .string(.localizable), required: true),
            Property("quantity", .number(minimum: 0, maximum: maximumQuantity), required: true),
            Property("subtitle", .string(.localizable)),
            Property("price", .object(currencyAmount)),
            Property("image", .string(.fileReference(.image))),
            Property("sku", .string(.text)),
            Property("gtin", .string(.text)),
        ])

    /// `SummaryItem`: one line of a payment summary.
    public static let summaryItem = ObjectSchema(
        "SummaryItem",
        [
            Property("label", .string(.localizable), required: true),
            Property("value", .object(currencyAmount), required: true),
        ])

    /// `PaymentMethod`.
    public static let paymentMethod = ObjectSchema(
        "PaymentMethod",
        [
            Property("displayName", .string(.localizable), required: true)
        ])

    /// `PaymentTransaction`: one charge or refund.
    public static let paymentTransaction = ObjectSchema(
        "PaymentTransaction",
        [
            Property("amount", .object(currencyAmount), required: true),
            Property("createdAt", .string(.dateTime), required: true),
            Property("paymentMethod", .object(paymentMethod), required: true),
            Property("status", .enumeration(["pending", "approved", "completed", "cancelled", "failed"]), required: true),
            Property("transactionType", .enumeration(["purchase", "refund"]), required: true),
            Property("applePayTransactionIdentifier", .string(.text)),
            Property("receipt", .string(.fileReference(.document))),
        ])

    /// `Payment`.
    public static let payment = ObjectSchema(
        "Payment",
        [
            Property("total", .object(currencyAmount), required: true),
            // Deprecated by Apple; required under schemaVersion 1 only (``OrderValidator``'s cross-field rules).
            Property("status", .enumeration(paymentStatuses)),
            Property("summaryItems", .array(.object(summaryItem), uniqueBy: nil, maximumCount: maximumSummaryItems)),
            Property("transactions", .array(.object(paymentTransaction), uniqueBy: nil, maximumCount: maximumTransactions)),
            Property("paymentMethods", .array(.string(.localizable), uniqueBy: nil, maximumCount: maximumPaymentMethods)),
            Property("applePayTransactionIdentifiers", .array(.string(.text(minimumLength: 1)), uniqueBy: nil, maximumCount: maximumTransactions)),
        ])

    /// `Recipient`: who receives a shipment.
    public static let recipient = ObjectSchema(
        "Recipient",
        [
            Property("givenName", .string(.text)),
            Property("familyName", .string(.text)),
            Property("organizationName", .string(.text)),
            Property("address", .object(address)),
        ])

    /// The schema versions Wallet reads: 1 everywhere, 2 on iOS 17 and later.
    public static let schemaVersions = 1...2
    /// The schema version under which `payment.status` may be left out and Apple's deprecated payment keys give way to
    /// `payment.transactions[]`.
    public static let transactionsOnlyVersion = 2

    /// The values of a payment's `status`.
    public static let paymentStatuses = ["pending", "authorized", "paid", "refunded", "declined", "voided"]
    /// The values of a shipping fulfillment's `status`.
    public static let shippingStatuses = ["open", "processing", "onTheWay", "outForDelivery", "delivered", "shipped", "issue", "cancelled"]
    /// The values of a pickup fulfillment's `status`.
    public static let pickupStatuses = ["open", "processing", "readyForPickup", "pickedUp", "issue", "cancelled"]

    /// `ShippingFulfillment`: a fulfillment whose `fulfillmentType` is `shipping`.
    public static let shippingFulfillment = ObjectSchema(
        "ShippingFulfillment",
        [
            Property("fulfillmentIdentifier", .string(.text(minimumLength: 1)), required: true),
            Property("fulfillmentType", .constant("shipping"), required: true),
            Property("status", .enumeration(shippingStatuses), required: true),
            Property("carrier", .string(.localizable)),
            Property("trackingNumber", .string(.text)),
            Property("trackingURL", .string(.uri)),
            Property("shippedAt", .string(.dateTime)),
            Property("estimatedDeliveryAt", .string(.dateTime)),
            Property("estimatedDeliveryWindowDuration", .string(.duration)),
            Property("deliveredAt", .string(.dateTime)),
            Property("shippingType", .enumeration(["shipping", "delivery"])),
            Property("lineItems", .array(.object(lineItem), uniqueBy: nil, maximumCount: maximumLineItems)),
            Property("notes", .string(.localizable)),
            Property("recipient", .object(recipient)),
            Property("statusDescription", .string(.localizable)),
        ])

    /// `PickupFulfillment`: a fulfillment whose `fulfillmentType` is `pickup`.
    public static let pickupFulfillment = ObjectSchema(
        "PickupFulfillment",
        [
            Property("fulfillmentIdentifier", .string(.text(minimumLength: 1)), required: true),
            Property("fulfillmentType", .constant("pickup"), required: true),
            Property("displayName", .string(.localizable), required: true, "the pickup location"),
            Property("status", .enumeration(pickupStatuses), required: true),
            Property("address", .object(address)),
            Property("location", .object(location)),
            Property("barcode", .object(barcode)),
            Property("pickupAt", .string(.dateTime)),
            Property("pickupWindowDuration", .string(.duration)),
            Property("pickedUpAt", .string(.dateTime)),
            Property("lineItems", .array(.object(lineItem), uniqueBy: nil, maximumCount: maximumLineItems)),
            Property("notes", .string(.localizable)),
            Property("statusDescription", .string(.localizable)),
        ])

    /// `ReturnInfo`: the return policy.
    public static let returnInfo = ObjectSchema(
        "ReturnInfo",
        [
            Property("returnPolicyURL", .string(.uri), required: true),
            Property("displayCountdown", .boolean),
            Property("returnDeadline", .string(.dateTime)),
            Property("returnManagementURL", .string(.uri)),
            Property("returnPolicyDescription", .string(.localizable)),
        ])

    /// The values of a return's `status`.
    public static let returnStatuses = ["open", "onTheWay", "processing", "issue", "completed", "cancelled"]

    /// `Return`: items sent back.
    public static let orderReturn = ObjectSchema(
        "Return",
        [
            Property("returnIdentifier", .string(.text(minimumLength: 1)), required: true),
            Property("status", .enumeration(returnStatuses), required: true),
            Property("carrier", .string(.localizable)),
            Property("dropOffBy", .string(.dateTime)),
            Property("initiatedAt", .string(.dateTime)),
            Property("returnedAt", .string(.dateTime)),
            Property("lineItems", .array(.object(lineItem), uniqueBy: nil, maximumCount: maximumLineItems)),
            Property("notes", .string(.localizable)),
            Property("returnLabel", .string(.fileReference(.document)), "a PDF, JPEG or PNG in the package"),
            Property("returnManagementURL", .string(.uri)),
            Property("returnNumber", .string(.text)),
            Property("statusDescription", .string(.localizable)),
        ])

    /// `OrderProvider`: the platform that runs the order.
    public static let orderProvider = ObjectSchema(
        "OrderProvider",
        [
            Property("displayName", .string(.localizable), required: true),
            Property("trackingLogoNameDarkColorScheme", .string(.fileReference(.image)), required: true),
            Property("trackingLogoNameLightColorScheme", .string(.fileReference(.image)), required: true),
            Property("url", .string(.uri), required: true),
        ])

    /// The values of the order's `status`.
    public static let orderStatuses = ["open", "completed", "cancelled"]

    /// The top-level order object.
    public static let order = ObjectSchema(
        "Order",
        [
            Property("schemaVersion", .integer(minimum: 1, maximum: 2), required: true, "1, or 2 for iOS 17 and later (payment.status optional)"),
            Property("orderTypeIdentifier", .string(.text(minimumLength: 1)), required: true, "must match the signing certificate"),
            Property("orderIdentifier", .string(.text(minimumLength: 1)), required: true, "unique within the order type"),
            Property("orderType", .constant("ecommerce"), required: true),
            Property("createdAt", .string(.dateTime), required: true),
            Property("updatedAt", .string(.dateTime), required: true),
            Property("status", .enumeration(orderStatuses), required: true),
            Property("merchant", .object(merchant), required: true),
            Property("orderManagementURL", .string(.uri), required: true),
            Property("associatedApplications", .array(.object(application), uniqueBy: nil, maximumCount: maximumAssociatedApplications)),
            Property(
                "associatedApplicationIdentifiers",
                .array(.string(.text(minimumLength: 1)), uniqueBy: nil, maximumCount: maximumAssociatedApplications)),
            Property("authenticationToken", .string(.text(minimumLength: 16)), "shared secret with the device; at least 16 characters"),
            Property("barcode", .object(barcode)),
            Property("changeNotifications", .enumeration(["enabled", "disabledIfAppInstalled"])),
            Property("customer", .object(customer)),
            Property(
                "fulfillments",
                .array(
                    .tagged(discriminator: "fulfillmentType", variants: ["shipping": shippingFulfillment, "pickup": pickupFulfillment]),
                    uniqueBy: "fulfillmentIdentifier", maximumCount: maximumFulfillments)
            ),
            Property("lineItems", .array(.object(lineItem), uniqueBy: nil, maximumCount: maximumLineItems)),
            Property("orderNumber", .string(.text)),
            Property("orderProvider", .object(orderProvider)),
            Property("payment", .object(payment)),
            Property("returnInfo", .object(returnInfo)),
            Property("returns", .array(.object(orderReturn), uniqueBy: "returnIdentifier", maximumCount: maximumReturns)),
            Property("statusDescription", .string(.localizable)),
            Property("webServiceURL", .string(.httpsURI), "base URL of the order web service; must start with https://"),
        ])
}
