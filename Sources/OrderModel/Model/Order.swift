import Foundation

/// The top-level object of order.json (Wallet Orders schema version 1).
///
/// Decode and encode it with the coders of ``OrderCoding`` so dates use RFC 3339 and amounts stay exact. The model
/// does not validate: read order.json through ``OrderDocument``, which validates first and keeps the keys this
/// model does not know.
public struct Order: Codable, Sendable, Hashable {
    /// Where the order stands as a whole.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// The order is in progress.
        case open
        /// The order is complete.
        case completed
        /// The order was cancelled.
        case cancelled
    }

    /// The kind of order; schema version 1 knows only e-commerce orders.
    public enum OrderType: String, Codable, Sendable, CaseIterable {
        /// An order placed online.
        case ecommerce
    }

    /// Whether Wallet notifies the customer when the order changes.
    public enum ChangeNotifications: String, Codable, Sendable, CaseIterable {
        /// Wallet always notifies.
        case enabled
        /// Wallet stays silent when one of the order's associated apps is installed.
        case disabledIfAppInstalled
    }

    /// The schema version; always 1.
    public var schemaVersion: Int = 1
    /// The order type identifier; it must match the Order Type ID certificate that signs the package.
    public var orderTypeIdentifier: String
    /// Identifies the order within its order type; unique per `orderTypeIdentifier`.
    public var orderIdentifier: String
    /// The kind of order; always ``OrderType/ecommerce``.
    public var orderType: OrderType = .ecommerce
    /// When the order was placed.
    public var createdAt: Date
    /// When the order last changed; never earlier than `createdAt` (the validator checks this).
    public var updatedAt: Date
    /// Where the order stands as a whole.
    public var status: Status
    /// The merchant who sold the order.
    public var merchant: Merchant
    /// A page on the merchant's site where the customer manages the order.
    public var orderManagementURL: URL
    /// Apps associated with the order, in order of preference (at most
    /// ``OrderSchema/maximumAssociatedApplications``).
    public var associatedApplications: [Application]?
    /// Application identifiers (team ID and bundle ID) of apps that may read the order.
    public var associatedApplicationIdentifiers: [String]?
    /// The secret Wallet sends back to the web service; at least 16 characters, and required with
    /// `webServiceURL`.
    public var authenticationToken: String?
    /// A barcode for the whole order, e.g. to show at a counter.
    public var barcode: Barcode?
    /// Whether Wallet notifies the customer of changes.
    public var changeNotifications: ChangeNotifications?
    /// The customer's contact details.
    public var customer: Customer?
    /// Shipments and pickups; their `fulfillmentIdentifier`s are unique.
    public var fulfillments: [Fulfillment]?
    /// What was ordered.
    public var lineItems: [LineItem]?
    /// The order number the merchant shows to the customer.
    public var orderNumber: String?
    /// The platform that runs the order for the merchant, when that is not the merchant itself.
    public var orderProvider: OrderProvider?
    /// What the customer pays and how.
    public var payment: Payment?
    /// The return policy.
    public var returnInfo: ReturnInfo?
    /// Returns of items of this order; their `returnIdentifier`s are unique.
    public var returns: [Return]?
    /// A localizable sentence that explains `status`.
    public var statusDescription: String?
    /// Base URL of the web service Wallet asks for updates; HTTPS unless
    /// ``ValidationOptions/allowInsecureWebServiceURL`` is set.
    public var webServiceURL: URL?

    /// An order with its required fields; `updatedAt` defaults to `createdAt` and every optional field starts as `nil`.
    public init(
        orderTypeIdentifier: String, orderIdentifier: String, createdAt: Date, updatedAt: Date? = nil,
        status: Status, merchant: Merchant, orderManagementURL: URL
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.status = status
        self.merchant = merchant
        self.orderManagementURL = orderManagementURL
    }
}

/// The merchant who sold an order.
public struct Merchant: Codable, Sendable, Hashable {
    /// The merchant's name as Wallet shows it; localizable.
    public var displayName: String
    /// The merchant's Apple Pay merchant identifier.
    public var merchantIdentifier: String
    /// The merchant's website.
    public var url: URL
    /// Name of the merchant's logo image in the package.
    public var logo: String?
    /// The merchant's postal address.
    public var address: Address?
    /// A Messages for Business URL to chat with the merchant.
    public var businessChatURL: URL?
    /// A page for contacting the merchant.
    public var contactURL: URL?
    /// The merchant's e-mail address.
    public var emailAddress: String?
    /// The merchant's phone number.
    public var phoneNumber: String?

    /// A merchant with its required fields and an optional logo.
    public init(displayName: String, merchantIdentifier: String, url: URL, logo: String? = nil) {
        self.displayName = displayName
        self.merchantIdentifier = merchantIdentifier
        self.url = url
        self.logo = logo
    }
}

/// The customer's contact details; every field is optional.
public struct Customer: Codable, Sendable, Hashable {
    /// The customer's e-mail address.
    public var emailAddress: String?
    /// The customer's family name.
    public var familyName: String?
    /// The customer's given name.
    public var givenName: String?
    /// The customer's organization.
    public var organizationName: String?
    /// The customer's phone number.
    public var phoneNumber: String?

    /// Customer details; omitted fields stay `nil`.
    public init(
        emailAddress: String? = nil, familyName: String? = nil, givenName: String? = nil, organizationName: String? = nil, phoneNumber: String? = nil
    ) {
        self.emailAddress = emailAddress
        self.familyName = familyName
        self.givenName = givenName
        self.organizationName = organizationName
        self.phoneNumber = phoneNumber
    }
}

/// A postal address.
public struct Address: Codable, Sendable, Hashable {
    /// Street lines, first to last (at most ``OrderSchema/maximumAddressLines``).
    public var addressLines: [String]?
    /// State, province or region.
    public var administrativeArea: String?
    /// ISO 3166-1 alpha-2.
    public var countryCode: String?
    /// City or town.
    public var locality: String?
    /// Postal code.
    public var postalCode: String?
    /// County or district.
    public var subAdministrativeArea: String?
    /// Neighbourhood or district within the locality.
    public var subLocality: String?

    /// An address; omitted fields stay `nil` (set `subAdministrativeArea` and `subLocality` afterwards).
    public init(
        addressLines: [String]? = nil, locality: String? = nil, postalCode: String? = nil, administrativeArea: String? = nil,
        countryCode: String? = nil
    ) {
        self.addressLines = addressLines
        self.locality = locality
        self.postalCode = postalCode
        self.administrativeArea = administrativeArea
        self.countryCode = countryCode
    }
}

/// A point on Earth in WGS 84 degrees.
public struct Location: Codable, Sendable, Hashable {
    /// Latitude in degrees, -90 to 90.
    public var latitude: Double
    /// Longitude in degrees, -180 to 180.
    public var longitude: Double
    /// Altitude in metres.
    public var altitude: Double?

    /// A location from its coordinates.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

/// An app associated with an order.
public struct Application: Codable, Sendable, Hashable {
    /// The app's App Store identifier (ADAM ID).
    public var storeIdentifier: Int
    /// A URL that opens the app at the order.
    public var launchURL: URL?
    /// An App Store custom product page to show instead of the default one.
    public var customProductPageIdentifier: String?

    /// An associated app.
    public init(storeIdentifier: Int, launchURL: URL? = nil, customProductPageIdentifier: String? = nil) {
        self.storeIdentifier = storeIdentifier
        self.launchURL = launchURL
        self.customProductPageIdentifier = customProductPageIdentifier
    }
}

/// A barcode Wallet shows with an order or a pickup.
public struct Barcode: Codable, Sendable, Hashable {
    /// The barcode symbology.
    public enum Format: String, Codable, Sendable, CaseIterable {
        /// QR code.
        case qr
        /// PDF417.
        case pdf417
        /// Aztec code.
        case aztec
        /// Code 128.
        case code128
    }

    /// The symbology.
    public var format: Format
    /// The encoded message; not empty.
    public var message: String
    /// The text encoding of `message`, usually `iso-8859-1`.
    public var messageEncoding: String
    /// Text shown under the barcode; localizable.
    public var altText: String?

    /// A barcode; the encoding defaults to ISO 8859-1, as Wallet expects.
    public init(format: Format, message: String, messageEncoding: String = "iso-8859-1", altText: String? = nil) {
        self.format = format
        self.message = message
        self.messageEncoding = messageEncoding
        self.altText = altText
    }
}

/// An exact money amount. Decodes JSON numbers and decimal strings; encodes a JSON number.
public struct CurrencyAmount: Codable, Sendable, Hashable {
    /// The exact amount.
    public var amount: Decimal
    /// ISO 4217.
    public var currency: String

    /// An amount in a currency.
    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    private enum CodingKeys: String, CodingKey { case amount, currency }

    /// Decodes `amount` from a JSON number or a decimal string such as `"12.50"`.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a string that is not plain decimal text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        currency = try container.decode(String.self, forKey: .currency)
        if let text = try? container.decode(String.self, forKey: .amount) {
            guard let value = Amount.decimal(text) else {
                throw DecodingError.dataCorruptedError(forKey: .amount, in: container, debugDescription: "\"\(text)\" is not a decimal amount")
            }
            amount = value
        } else {
            amount = try container.decode(Decimal.self, forKey: .amount)
        }
    }
}

/// One product of an order, a fulfillment or a return.
public struct LineItem: Codable, Sendable, Hashable {
    /// The product name; localizable.
    public var title: String
    /// How many; not negative, and may be fractional (kilograms, metres).
    public var quantity: Decimal
    /// A second line under the title; localizable.
    public var subtitle: String?
    /// The price of the line.
    public var price: CurrencyAmount?
    /// Name of the product image in the package.
    public var image: String?
    /// The merchant's stock-keeping unit.
    public var sku: String?
    /// The Global Trade Item Number (EAN, UPC).
    public var gtin: String?

    /// A line item with its title and quantity.
    public init(title: String, quantity: Decimal, price: CurrencyAmount? = nil, image: String? = nil) {
        self.title = title
        self.quantity = quantity
        self.price = price
        self.image = image
    }
}
