import Foundation
import WireFormats

/// What a merchant event reports; the raw value is its published `type`.
public enum EventType: String, Sendable, Hashable, CaseIterable {
    /// An order was created.
    case orderCreated = "order.created"
    /// An order changed (a new version), with the JSON Pointers it touched and who changed it.
    case orderUpdated = "order.updated"
    /// A device registered for an order that had none: the order is in a wallet.
    case orderWalletAdded = "order.wallet_added"
    /// An order's last registration went (the device unregistered, or its registration was deleted).
    case orderWalletRemoved = "order.wallet_removed"
    /// A push job was parked, or APNs invalidated its token, with APNs' reason.
    case pushFailed = "push.failed"
    /// An update moved a fulfillment to `delivered` (a shipment) or `pickedUp` (a pickup).
    case fulfillmentDelivered = "fulfillment.delivered"
    /// An update moved a fulfillment to `issue`.
    case fulfillmentIssue = "fulfillment.issue"
    /// A carrier event matched none of the merchant's fulfillments.
    case carrierEventUnmatched = "carrier.event_unmatched"

    /// The event a fulfillment reaching `status` reports, if any.
    static func fulfillment(reaching status: String) -> EventType? {
        switch status {
        case "delivered", "pickedUp": .fulfillmentDelivered
        case "issue": .fulfillmentIssue
        default: nil
        }
    }
}

/// One entry of a merchant's event log, written in the transaction of the change it reports: none is lost, none
/// invented.
public struct EventRecord: Sendable, Hashable {
    /// `evt_` and 24 random hex digits.
    public var id: String
    /// The merchant whose change it reports.
    public var merchantID: String
    /// Increasing per merchant, in commit order: what a reader following the log continues after.
    public var sequence: Int64
    /// What it reports.
    public var type: EventType
    /// When the change was written; millisecond precision.
    public var createdAt: Date
    /// The order it concerns, when it concerns one.
    public var order: OrderKey?
    /// The event's `data`: a JSON object, its members depending on its `type`.
    public var data: String

    /// An event as stored.
    public init(id: String, merchantID: String, sequence: Int64, type: EventType, createdAt: Date, order: OrderKey?, data: String) {
        self.id = id
        self.merchantID = merchantID
        self.sequence = sequence
        self.type = type
        self.createdAt = createdAt
        self.order = order
        self.data = data
    }
}

/// A page of a merchant's events, newest first.
public struct EventPage: Sendable {
    /// The page's events, newest first.
    public var events: [EventRecord]
    /// Pass as `after` to continue with older events; `nil` when this page is the last.
    public var nextCursor: String?

    /// Creates a page.
    public init(events: [EventRecord], nextCursor: String?) {
        self.events = events
        self.nextCursor = nextCursor
    }
}

/// A fulfillment whose status a change moved, as the change's caller (which has both documents) finds it.
public struct FulfillmentStatusChange: Sendable, Hashable {
    /// The fulfillment's `fulfillmentIdentifier`.
    public var fulfillmentIdentifier: String
    /// Its status before; `nil` for a fulfillment the change added.
    public var from: String?
    /// Its status after.
    public var to: String

    /// A status change.
    public init(fulfillmentIdentifier: String, from: String?, to: String) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.from = from
        self.to = to
    }
}

/// An event to append, before the store gives it an id, a sequence and a time.
struct NewEvent: Sendable {
    var merchantID: String
    var type: EventType
    var order: OrderKey?
    var data: [String: EventValue]
}

/// A value in an event's `data`.
enum EventValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case strings([String])
    case object([String: EventValue])
    case null

    init(_ text: String?) { self = text.map(EventValue.string) ?? .null }

    /// An event's `data` as the events table stores it: JSON with sorted keys. Written here, not with
    /// `JSONEncoder`, which took more CPU than the rest of appending an order write's events.
    static func serialized(_ members: [String: EventValue]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        EventValue.object(members).write(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .string(let text): JSONText.appendString(text, to: &output)
        case .integer(let number): output.append(contentsOf: String(number).utf8)
        case .null: output.append(contentsOf: "null".utf8)
        case .strings(let texts):
            output.append(UInt8(ascii: "["))
            for (position, text) in texts.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendString(text, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                members[key]!.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}
