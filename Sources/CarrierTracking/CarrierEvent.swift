import Foundation
import OrderModel
import WireFormats

/// One tracking event, whatever provider sent it: what the matching, the status map and the update rules read.
///
/// Provider vocabularies stay open strings (``status``, ``subStatus``): AfterShip asks receivers to treat its enums as
/// open, and a status no table knows is shown to the merchant rather than refused.
///
/// A server keeps it durably until its worker applies it in its ``storedForm``.
public struct CarrierEvent: Sendable, Hashable {
    /// Who sent the event.
    public var provider: CarrierProvider
    /// The key that makes a redelivery a duplicate: AfterShip `event_id`, EasyPost Event `id`, the generic `id`, and
    /// for Shippo and ShipEngine (which give none) `sha256:` and the hex SHA-256 of the raw body.
    public var idempotencyKey: String
    /// The carrier's tracking number.
    public var trackingNumber: String
    /// The provider's carrier code (`usps`, `dhl-express`, `FedEx`), when it gives one.
    public var carrierCode: String?
    /// The carrier's name as Wallet shows it (``CarrierNames/displayName(for:)``).
    public var carrierName: String?
    /// The provider's status as sent: AfterShip `tag`, EasyPost `status`, Shippo `tracking_status.status`,
    /// ShipEngine `status_code`, the generic `status`.
    public var status: String
    /// The provider's finer status: AfterShip `subtag`, EasyPost `status_detail`, Shippo `substatus.code`,
    /// ShipEngine `status_detail_code`.
    public var subStatus: String?
    /// When the carrier scanned the parcel (the latest checkpoint's time), else when the provider made the event.
    /// Events are ordered by this time, not by arrival.
    public var occurredAt: Date
    /// The delivery estimate, when the provider gives one.
    public var estimatedDelivery: EstimatedDelivery?
    /// The carrier's tracking page (http or https only).
    public var trackingURL: URL?
    /// A short explanation of the status from the provider (a subtag message, a substatus text).
    public var statusDescription: String?
    /// The merchant's order reference the provider carries: AfterShip `order_number`, Shippo `metadata`, EasyPost
    /// `shipment_id`, the generic `orderIdentifier`. Used when no fulfillment has the tracking number.
    public var orderReference: String?
    /// The payload version the provider declared (AfterShip `As-Webhook-Version`).
    public var webhookVersion: String?

    /// An event; optional details default to absent.
    public init(
        provider: CarrierProvider, idempotencyKey: String, trackingNumber: String, carrierCode: String? = nil, carrierName: String? = nil,
        status: String, subStatus: String? = nil, occurredAt: Date, estimatedDelivery: EstimatedDelivery? = nil, trackingURL: URL? = nil,
        statusDescription: String? = nil, orderReference: String? = nil, webhookVersion: String? = nil
    ) {
        self.provider = provider
        self.idempotencyKey = idempotencyKey
        self.trackingNumber = trackingNumber
        self.carrierCode = carrierCode
        self.carrierName = carrierName
        self.status = status
        self.subStatus = subStatus
        self.occurredAt = occurredAt
        self.estimatedDelivery = estimatedDelivery
        self.trackingURL = trackingURL
        self.statusDescription = statusDescription
        self.orderReference = orderReference
        self.webhookVersion = webhookVersion
    }
}

/// A delivery estimate: a time, or the start of a window and its length.
public struct EstimatedDelivery: Sendable, Hashable {
    /// The estimated time, or the start of the window.
    public var at: Date
    /// The window's length as an ISO 8601 duration (`PT4H`), Wallet's `estimatedDeliveryWindowDuration`.
    public var windowDuration: String?

    /// An estimate at `at`, optionally a window of `windowDuration`.
    public init(at: Date, windowDuration: String? = nil) {
        self.at = at
        self.windowDuration = windowDuration
    }

    /// The estimate from a window's two ends; a single time when they coincide, `nil` when `end` is before `start`.
    public init?(start: Date, end: Date) {
        let seconds = Int(end.timeIntervalSince(start).rounded())
        guard seconds >= 0 else { return nil }
        self.at = start
        self.windowDuration = seconds == 0 ? nil : Self.isoDuration(seconds: seconds)
    }

    /// `PT<h>H<m>M<s>S` with zero parts left out (`PT4H`, `PT26H30M`).
    static func isoDuration(seconds: Int) -> String {
        var text = "PT"
        if seconds >= 3600 { text += "\(seconds / 3600)H" }
        if seconds % 3600 >= 60 { text += "\(seconds % 3600 / 60)M" }
        if seconds % 60 > 0 { text += "\(seconds % 60)S" }
        return text
    }
}

/// The names Wallet shows for common carriers, from the codes the providers send.
///
/// Codes are compared without case, spaces, hyphens or underscores (`dhl-express`, `dhl_express` and `DHLExpress` are
/// one carrier). A code not in the table is shown as sent: EasyPost and Shippo already send readable names for most.
public enum CarrierNames {
    /// Normalized code → display name.
    public static let table: [String: String] = [
        "usps": "USPS", "stampscom": "USPS", "ups": "UPS", "upsmi": "UPS Mail Innovations", "fedex": "FedEx", "dhl": "DHL",
        "dhlexpress": "DHL Express", "dhlecommerce": "DHL eCommerce", "dhlglobalmail": "DHL eCommerce", "dhlparcel": "DHL Parcel",
        "dhlde": "DHL", "deutschepost": "Deutsche Post", "deutschpost": "Deutsche Post", "canadapost": "Canada Post",
        "royalmail": "Royal Mail", "parcelforce": "Parcelforce", "australiapost": "Australia Post", "auspost": "Australia Post",
        "dpd": "DPD", "dpduk": "DPD", "gls": "GLS", "tnt": "TNT", "ontrac": "OnTrac", "lasership": "LaserShip", "purolator": "Purolator",
        "laposte": "La Poste", "lapostecolissimo": "Colissimo", "colissimo": "Colissimo", "postnl": "PostNL", "bpost": "bpost",
        "amazon": "Amazon", "amazonshipping": "Amazon Shipping", "hermes": "Evri", "evri": "Evri", "postnord": "PostNord",
        "correos": "Correos", "poste": "Poste Italiane", "posteitaliane": "Poste Italiane", "swisspost": "Swiss Post",
        "japanpost": "Japan Post", "yamato": "Yamato Transport", "sfexpress": "SF Express", "chinapost": "China Post",
        "aramex": "Aramex", "newzealandpost": "NZ Post", "nzpost": "NZ Post",
    ]

    /// The display name of `code`: the table's, else `code` as sent (trimmed).
    public static func displayName(for code: String) -> String {
        let key = String(code.lowercased().unicodeScalars.filter { !" -_.".unicodeScalars.contains($0) })
        return table[key] ?? Node.trimmed(code)
    }

    /// The carrier's public tracking page for `trackingNumber`, for the few carriers with a stable URL template;
    /// used when the provider sends no tracking URL.
    public static func trackingURL(carrierCode: String, trackingNumber: String) -> URL? {
        let key = String(carrierCode.lowercased().unicodeScalars.filter { !" -_.".unicodeScalars.contains($0) })
        let template: String? =
            switch key {
            case "usps", "stampscom": "https://tools.usps.com/go/TrackConfirmAction?tLabels="
            case "ups": "https://www.ups.com/track?tracknum="
            case "fedex": "https://www.fedex.com/fedextrack/?trknbr="
            case "dhl", "dhlexpress": "https://www.dhl.com/global-en/home/tracking.html?tracking-id="
            default: nil
            }
        // Every byte but ASCII letters and digits encoded: Foundation's `.alphanumerics` would leave non-ASCII letters.
        return template.flatMap { URL(string: $0 + PercentEncoding.encode(trackingNumber, keeping: PercentEncoding.isASCIIAlphanumeric)) }
    }
}

/// The date formats carriers send, read leniently but never guessed: RFC 3339; a date-time without an offset (AfterShip
/// checkpoints carry the carrier's local time without one), read as UTC; a bare date, read as midnight UTC.
enum CarrierDate {
    static func parse(_ text: String) -> Date? {
        if let date = DateTimeFormat.parseRFC3339(text) { return date }
        let bytes = Array(text.utf8)
        if bytes.count == 10 { return DateTimeFormat.parseRFC3339(text + "T00:00:00Z") }
        if bytes.count >= 19, bytes.count <= 26, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") {
            var fixed = bytes
            fixed[10] = UInt8(ascii: "T")
            return DateTimeFormat.parseRFC3339(String(decoding: fixed, as: UTF8.self) + "Z")
        }
        return nil
    }

    /// An RFC 3339 date-time, or unix seconds (1 to 12 digits).
    static func parseTimestamp(_ text: String) -> Date? {
        if (1...12).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int64(text) {
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        return DateTimeFormat.parseRFC3339(text)
    }
}
