import Foundation

/// A shipping or pickup fulfillment, chosen by `fulfillmentType`.
public enum Fulfillment: Codable, Sendable, Hashable {
    /// Goods shipped or delivered to the customer.
    case shipping(ShippingFulfillment)
    /// Goods the customer picks up.
    case pickup(PickupFulfillment)

    /// The identifier of the wrapped fulfillment.
    public var fulfillmentIdentifier: String {
        switch self {
        case .shipping(let fulfillment): fulfillment.fulfillmentIdentifier
        case .pickup(let fulfillment): fulfillment.fulfillmentIdentifier
        }
    }

    private enum TypeKey: String, CodingKey { case fulfillmentType }

    /// Decodes the variant that `fulfillmentType` names.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when `fulfillmentType` is neither `shipping` nor `pickup`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        switch try container.decode(String.self, forKey: .fulfillmentType) {
        case "shipping": self = .shipping(try ShippingFulfillment(from: decoder))
        case "pickup": self = .pickup(try PickupFulfillment(from: decoder))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .fulfillmentType, in: container, debugDescription: "unknown fulfillmentType \"\(other)\"; use \"shipping\" or \"pickup\"")
        }
    }

    /// Encodes the wrapped fulfillment, `fulfillmentType` included.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .shipping(let fulfillment): try fulfillment.encode(to: encoder)
        case .pickup(let fulfillment): try fulfillment.encode(to: encoder)
        }
    }
}

/// Goods shipped or delivered to the customer.
public struct ShippingFulfillment: Codable, Sendable, Hashable {
    /// Where the shipment stands.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Not yet processed.
        case open
        /// Being prepared.
        case processing
        /// Handed to the carrier and travelling.
        case onTheWay
        /// Out with the courier for delivery today.
        case outForDelivery
        /// Delivered.
        case delivered
        /// Shipped; use when the carrier reports no finer status.
        case shipped
        /// Something went wrong; `statusDescription` says what.
        case issue
        /// Cancelled.
        case cancelled
    }

    /// How Wallet words the shipment.
    public enum ShippingType: String, Codable, Sendable, CaseIterable {
        /// Sent by a carrier.
        case shipping
        /// Brought by the merchant's own delivery.
        case delivery
    }

    /// Identifies the fulfillment within its order.
    public var fulfillmentIdentifier: String
    /// Always `shipping`; written to JSON as the discriminator.
    public private(set) var fulfillmentType = "shipping"
    /// Where the shipment stands.
    public var status: Status
    /// The carrier's name; localizable.
    public var carrier: String?
    /// The carrier's tracking number.
    public var trackingNumber: String?
    /// The carrier's tracking page.
    public var trackingURL: URL?
    /// When the shipment left.
    public var shippedAt: Date?
    /// The start of the expected delivery window.
    public var estimatedDeliveryAt: Date?
    /// ISO 8601 duration, e.g. `PT2H`.
    public var estimatedDeliveryWindowDuration: String?
    /// When the shipment arrived.
    public var deliveredAt: Date?
    /// How Wallet words the shipment.
    public var shippingType: ShippingType?
    /// What this shipment holds.
    public var lineItems: [LineItem]?
    /// Notes for the customer; localizable.
    public var notes: String?
    /// Who receives the shipment, and where.
    public var recipient: Recipient?
    /// A localizable sentence that explains `status`.
    public var statusDescription: String?

    /// A shipment with its identifier, status and optional tracking details.
    public init(fulfillmentIdentifier: String, status: Status, carrier: String? = nil, trackingNumber: String? = nil, trackingURL: URL? = nil) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.status = status
        self.carrier = carrier
        self.trackingNumber = trackingNumber
        self.trackingURL = trackingURL
    }
}

/// Who receives a shipment, and where.
public struct Recipient: Codable, Sendable, Hashable {
    /// The recipient's given name.
    public var givenName: String?
    /// The recipient's family name.
    public var familyName: String?
    /// The recipient's organization.
    public var organizationName: String?
    /// The delivery address.
    public var address: Address?

    /// A recipient; omitted fields stay `nil`.
    public init(givenName: String? = nil, familyName: String? = nil, organizationName: String? = nil, address: Address? = nil) {
        self.givenName = givenName
        self.familyName = familyName
        self.organizationName = organizationName
        self.address = address
    }
}

/// Goods the customer picks up.
public struct PickupFulfillment: Codable, Sendable, Hashable {
    /// Where the pickup stands.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Not yet processed.
        case open
        /// Being prepared.
        case processing
        /// Waiting at the pickup location.
        case readyForPickup
        /// Collected by the customer.
        case pickedUp
        /// Something went wrong; `statusDescription` says what.
        case issue
        /// Cancelled.
        case cancelled
    }

    /// Identifies the fulfillment within its order.
    public var fulfillmentIdentifier: String
    /// Always `pickup`; written to JSON as the discriminator.
    public private(set) var fulfillmentType = "pickup"
    /// The pickup location's name.
    public var displayName: String
    /// Where the pickup stands.
    public var status: Status
    /// The pickup location's address.
    public var address: Address?
    /// The pickup location's coordinates.
    public var location: Location?
    /// A barcode to show when collecting.
    public var barcode: Barcode?
    /// The start of the pickup window.
    public var pickupAt: Date?
    /// ISO 8601 duration, e.g. `PT30M`.
    public var pickupWindowDuration: String?
    /// When the customer collected the goods.
    public var pickedUpAt: Date?
    /// What this pickup holds.
    public var lineItems: [LineItem]?
    /// Notes for the customer; localizable.
    public var notes: String?
    /// A localizable sentence that explains `status`.
    public var statusDescription: String?

    /// A pickup with its identifier, location name and status.
    public init(fulfillmentIdentifier: String, displayName: String, status: Status) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.displayName = displayName
        self.status = status
    }
}

/// An order's return policy.
public struct ReturnInfo: Codable, Sendable, Hashable {
    /// The merchant's return policy page.
    public var returnPolicyURL: URL
    /// Whether Wallet counts down to `returnDeadline`.
    public var displayCountdown: Bool?
    /// The last moment to start a return.
    public var returnDeadline: Date?
    /// A page where the customer starts a return.
    public var returnManagementURL: URL?
    /// A short summary of the policy; localizable.
    public var returnPolicyDescription: String?

    /// A return policy with its page and an optional deadline.
    public init(returnPolicyURL: URL, returnDeadline: Date? = nil) {
        self.returnPolicyURL = returnPolicyURL
        self.returnDeadline = returnDeadline
    }
}

/// Items the customer sends back.
public struct Return: Codable, Sendable, Hashable {
    /// Where the return stands.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Started, not yet sent back.
        case open
        /// Travelling back to the merchant.
        case onTheWay
        /// Received and being processed.
        case processing
        /// Something went wrong; `statusDescription` says what.
        case issue
        /// Done.
        case completed
        /// Cancelled.
        case cancelled
    }

    /// Identifies the return within its order.
    public var returnIdentifier: String
    /// Where the return stands.
    public var status: Status
    /// The carrier's name; localizable.
    public var carrier: String?
    /// The last moment to hand the items to the carrier.
    public var dropOffBy: Date?
    /// When the return was started.
    public var initiatedAt: Date?
    /// When the merchant received the items.
    public var returnedAt: Date?
    /// What is returned.
    public var lineItems: [LineItem]?
    /// Notes for the customer; localizable.
    public var notes: String?
    /// Name of a PDF, JPEG or PNG label in the package.
    public var returnLabel: String?
    /// A page where the customer manages the return.
    public var returnManagementURL: URL?
    /// The return number the merchant shows to the customer.
    public var returnNumber: String?
    /// A localizable sentence that explains `status`.
    public var statusDescription: String?

    /// A return with its identifier and status.
    public init(returnIdentifier: String, status: Status) {
        self.returnIdentifier = returnIdentifier
        self.status = status
    }
}

/// The platform that runs an order for the merchant.
public struct OrderProvider: Codable, Sendable, Hashable {
    /// The platform's name; localizable.
    public var displayName: String
    /// Name of the platform's logo for dark mode, in the package.
    public var trackingLogoNameDarkColorScheme: String
    /// Name of the platform's logo for light mode, in the package.
    public var trackingLogoNameLightColorScheme: String
    /// The platform's website.
    public var url: URL

    /// An order provider with its required fields.
    public init(displayName: String, trackingLogoNameDarkColorScheme: String, trackingLogoNameLightColorScheme: String, url: URL) {
        self.displayName = displayName
        self.trackingLogoNameDarkColorScheme = trackingLogoNameDarkColorScheme
        self.trackingLogoNameLightColorScheme = trackingLogoNameLightColorScheme
        self.url = url
    }
}
