import Foundation

/// A shipping or pickup fulfillment, chosen by `fulfillmentType`.
public enum Fulfillment: Codable, Sendable, Hashable {
    case shipping(ShippingFulfillment)
    case pickup(PickupFulfillment)

    public var fulfillmentIdentifier: String {
        switch self {
        case .shipping(let fulfillment): fulfillment.fulfillmentIdentifier
        case .pickup(let fulfillment): fulfillment.fulfillmentIdentifier
        }
    }

    private enum TypeKey: String, CodingKey { case fulfillmentType }

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

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .shipping(let fulfillment): try fulfillment.encode(to: encoder)
        case .pickup(let fulfillment): try fulfillment.encode(to: encoder)
        }
    }
}

public struct ShippingFulfillment: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, CaseIterable {
        case open, processing, onTheWay, outForDelivery, delivered, shipped, issue, cancelled
    }
    public enum ShippingType: String, Codable, Sendable, CaseIterable { case shipping, delivery }

    public var fulfillmentIdentifier: String
    public private(set) var fulfillmentType = "shipping"
    public var status: Status
    public var carrier: String?
    public var trackingNumber: String?
    public var trackingURL: URL?
    public var shippedAt: Date?
    public var estimatedDeliveryAt: Date?
    /// ISO 8601 duration, e.g. `PT2H`.
    public var estimatedDeliveryWindowDuration: String?
    public var deliveredAt: Date?
    public var shippingType: ShippingType?
    public var lineItems: [LineItem]?
    public var notes: String?
    public var recipient: Recipient?
    public var statusDescription: String?

    public init(fulfillmentIdentifier: String, status: Status, carrier: String? = nil, trackingNumber: String? = nil, trackingURL: URL? = nil) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.status = status
        self.carrier = carrier
        self.trackingNumber = trackingNumber
        self.trackingURL = trackingURL
    }
}

public struct Recipient: Codable, Sendable, Hashable {
    public var givenName: String?
    public var familyName: String?
    public var organizationName: String?
    public var address: Address?

    public init(givenName: String? = nil, familyName: String? = nil, organizationName: String? = nil, address: Address? = nil) {
        self.givenName = givenName
        self.familyName = familyName
        self.organizationName = organizationName
        self.address = address
    }
}

public struct PickupFulfillment: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, CaseIterable { case open, processing, readyForPickup, pickedUp, issue, cancelled }

    public var fulfillmentIdentifier: String
    public private(set) var fulfillmentType = "pickup"
    /// The pickup location's name.
    public var displayName: String
    public var status: Status
    public var address: Address?
    public var location: Location?
    public var barcode: Barcode?
    public var pickupAt: Date?
    /// ISO 8601 duration, e.g. `PT30M`.
    public var pickupWindowDuration: String?
    public var pickedUpAt: Date?
    public var lineItems: [LineItem]?
    public var notes: String?
    public var statusDescription: String?

    public init(fulfillmentIdentifier: String, displayName: String, status: Status) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.displayName = displayName
        self.status = status
    }
}

public struct ReturnInfo: Codable, Sendable, Hashable {
    public var returnPolicyURL: URL
    public var displayCountdown: Bool?
    public var returnDeadline: Date?
    public var returnManagementURL: URL?
    public var returnPolicyDescription: String?

    public init(returnPolicyURL: URL, returnDeadline: Date? = nil) {
        self.returnPolicyURL = returnPolicyURL
        self.returnDeadline = returnDeadline
    }
}

public struct Return: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, CaseIterable { case open, onTheWay, processing, issue, completed, cancelled }

    public var returnIdentifier: String
    public var status: Status
    public var carrier: String?
    public var dropOffBy: Date?
    public var initiatedAt: Date?
    public var returnedAt: Date?
    public var lineItems: [LineItem]?
    public var notes: String?
    /// Name of a PDF, JPEG or PNG label in the package.
    public var returnLabel: String?
    public var returnManagementURL: URL?
    public var returnNumber: String?
    public var statusDescription: String?

    public init(returnIdentifier: String, status: Status) {
        self.returnIdentifier = returnIdentifier
        self.status = status
    }
}

public struct OrderProvider: Codable, Sendable, Hashable {
    public var displayName: String
    public var trackingLogoNameDarkColorScheme: String
    public var trackingLogoNameLightColorScheme: String
    public var url: URL

    public init(displayName: String, trackingLogoNameDarkColorScheme: String, trackingLogoNameLightColorScheme: String, url: URL) {
        self.displayName = displayName
        self.trackingLogoNameDarkColorScheme = trackingLogoNameDarkColorScheme
        self.trackingLogoNameLightColorScheme = trackingLogoNameLightColorScheme
        self.url = url
    }
}
