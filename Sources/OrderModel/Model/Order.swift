import Foundation

/// The top-level object of order.json (Wallet Orders schema version 1).
///
/// Decode with ``Order/decode(_:)`` and encode with ``Order/encoded()`` so dates use RFC 3339 and amounts stay
/// exact. Keys this model does not know survive a round trip through ``OrderDocument``.
public struct Order: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, CaseIterable { case open, completed, cancelled }
    public enum OrderType: String, Codable, Sendable, CaseIterable { case ecommerce }
    public enum ChangeNotifications: String, Codable, Sendable, CaseIterable { case enabled, disabledIfAppInstalled }

    public var schemaVersion: Int = 1
    public var orderTypeIdentifier: String
    public var orderIdentifier: String
    public var orderType: OrderType = .ecommerce
    public var createdAt: Date
    public var updatedAt: Date
    public var status: Status
    public var merchant: Merchant
    public var orderManagementURL: URL
    public var associatedApplications: [Application]?
    public var associatedApplicationIdentifiers: [String]?
    public var authenticationToken: String?
    public var barcode: Barcode?
    public var changeNotifications: ChangeNotifications?
    public var customer: Customer?
    public var fulfillments: [Fulfillment]?
    public var lineItems: [LineItem]?
    public var orderNumber: String?
    public var orderProvider: OrderProvider?
    public var payment: Payment?
    public var returnInfo: ReturnInfo?
    public var returns: [Return]?
    public var statusDescription: String?
    public var webServiceURL: URL?

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

public struct Merchant: Codable, Sendable, Hashable {
    public var displayName: String
    public var merchantIdentifier: String
    public var url: URL
    public var logo: String?
    public var address: Address?
    public var businessChatURL: URL?
    public var contactURL: URL?
    public var emailAddress: String?
    public var phoneNumber: String?

    public init(displayName: String, merchantIdentifier: String, url: URL, logo: String? = nil) {
        self.displayName = displayName
        self.merchantIdentifier = merchantIdentifier
        self.url = url
        self.logo = logo
    }
}

public struct Customer: Codable, Sendable, Hashable {
    public var emailAddress: String?
    public var familyName: String?
    public var givenName: String?
    public var organizationName: String?
    public var phoneNumber: String?

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

public struct Address: Codable, Sendable, Hashable {
    public var addressLines: [String]?
    public var administrativeArea: String?
    /// ISO 3166-1 alpha-2.
    public var countryCode: String?
    public var locality: String?
    public var postalCode: String?
    public var subAdministrativeArea: String?
    public var subLocality: String?

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

public struct Location: Codable, Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

public struct Application: Codable, Sendable, Hashable {
    public var storeIdentifier: Int
    public var launchURL: URL?
    public var customProductPageIdentifier: String?

    public init(storeIdentifier: Int, launchURL: URL? = nil, customProductPageIdentifier: String? = nil) {
        self.storeIdentifier = storeIdentifier
        self.launchURL = launchURL
        self.customProductPageIdentifier = customProductPageIdentifier
    }
}

public struct Barcode: Codable, Sendable, Hashable {
    public enum Format: String, Codable, Sendable, CaseIterable { case qr, pdf417, aztec, code128 }

    public var format: Format
    public var message: String
    public var messageEncoding: String
    public var altText: String?

    public init(format: Format, message: String, messageEncoding: String = "iso-8859-1", altText: String? = nil) {
        self.format = format
        self.message = message
        self.messageEncoding = messageEncoding
        self.altText = altText
    }
}

/// An exact money amount. Decodes JSON numbers and decimal strings; encodes a JSON number.
public struct CurrencyAmount: Codable, Sendable, Hashable {
    public var amount: Decimal
    /// ISO 4217.
    public var currency: String

    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    private enum CodingKeys: String, CodingKey { case amount, currency }

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

public struct LineItem: Codable, Sendable, Hashable {
    public var title: String
    public var quantity: Decimal
    public var subtitle: String?
    public var price: CurrencyAmount?
    public var image: String?
    public var sku: String?
    public var gtin: String?

    public init(title: String, quantity: Decimal, price: CurrencyAmount? = nil, image: String? = nil) {
        self.title = title
        self.quantity = quantity
        self.price = price
        self.image = image
    }
}
