import Foundation
import Hummingbird
import OrderModel
import OrderPersistence
import OrderTrackServer

/// The Carriers page: connects a tracking provider through ``CarrierConnections``, the service
/// `/api/v1/carrier-connections` calls (so the page refuses and stores exactly what the API would), lists the
/// merchant's connections with their webhook URLs (never their secrets), deletes one, and shows the latest carrier
/// events with what the worker made of them.
struct CarriersPage: Sendable {
    static let path = "/dashboard/carriers"
    /// How many events the page lists, newest first: enough to see a day's deliveries of a small shop.
    static let eventCount = 50

    let connections: CarrierConnections
    let events: any CarrierEventInbox

    /// A provider the form offers, and where in its console the webhook URL goes.
    struct Provider: Sendable {
        var value: String
        var name: String
        var hint: String
    }

    /// The providers of `CarrierProvider`, in its order (a test checks that they are the same).
    static let providers = [
        Provider(
            value: "aftership", name: "AfterShip",
            hint: "In AfterShip: Tracking → Settings → Notifications → Webhooks. Its webhook secret on that page is this connection's secret."),
        Provider(
            value: "easypost", name: "EasyPost",
            hint:
                "In EasyPost: Account settings → Webhooks, with this connection's secret as the webhook secret (without one EasyPost signs nothing and events are refused)."
        ),
        Provider(
            value: "shippo", name: "Shippo",
            hint: "In Shippo: Settings → Webhooks, event type track_updated, once; ask Shippo to enable HMAC signing with this connection's secret."),
        Provider(
            value: "shipengine", name: "ShipEngine",
            hint: "With ShipEngine's Webhooks API, event track. ShipEngine signs with the RSA keys it publishes: there is no secret to set."),
        Provider(
            value: "generic", name: "Generic",
            hint: "Your own system posts each event to it in the generic format, signed with this connection's secret (OrderTrack-Signature)."),
    ]

    static func provider(_ value: String) -> Provider? { providers.first { $0.value == value } }

    /// What the connect form posted, shown again beside a refusal; the secret is never sent back.
    struct Entry: Sendable {
        var provider = "aftership"
        var jwksURL = ""
        var statusMap = ""
        /// The form's field at fault (`provider`, `secret`, `jwksURL`, `statusMap`) and why.
        var error: (field: String, message: String)?
    }

    /// Why a status map text does not read as `providerStatus = walletStatus` lines.
    struct StatusMapSyntaxError: Error {
        var message: String
    }

    /// The status map lines as the API's `statusMap` object: one `providerStatus = walletStatus` per line (browsers
    /// post CRLF), blank lines and `#` comments skipped; `nil` when there is none. Whether the statuses exist is the service's to check.
    static func statusMap(_ text: String) throws(StatusMapSyntaxError) -> [String: String]? {
        var map: [String: String] = [:]
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw StatusMapSyntaxError(message: "line \(number + 1) is not providerStatus = walletStatus: \(line.prefix(64))")
            }
            guard map.updateValue(parts[1], forKey: parts[0]) == nil else {
                throw StatusMapSyntaxError(message: "line \(number + 1) maps \(parts[0].prefix(64)) a second time")
            }
        }
        return map.isEmpty ? nil : map
    }

    /// What posting the connect form did.
    enum Connecting: Sendable {
        case made(CarrierConnectionRecord)
        case refused(Entry)
    }

    /// Makes the connection the form describes, or answers what to show beside the form: the service's refusal
    /// (its field, from `statusMap.InTransit` down to `statusMap`) or a status map that does not read.
    func connect(merchantID: String, form: DashboardForm) async throws -> Connecting {
        let text = { (name: String) in form[name].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 } }
        var entry = Entry(provider: form["provider"] ?? "", jwksURL: text("jwksURL") ?? "", statusMap: form["statusMap"] ?? "")
        let statusMap: [String: String]?
        do {
            statusMap = try Self.statusMap(entry.statusMap)
        } catch {
            entry.error = ("statusMap", error.message)
            return .refused(entry)
        }
        // An empty secret is none: the service then says which providers need one. It is not trimmed: it is the
        // provider's, byte for byte.
        let secret = form["secret"].flatMap { $0.isEmpty ? nil : $0 }
        do {
            return .made(
                try await connections.create(
                    merchantID: merchantID,
                    CarrierConnections.Creation(provider: entry.provider, secret: secret, jwksURL: text("jwksURL"), statusMap: statusMap)))
        } catch let error as OrderTrackError where error.code == .invalidCarrierConnection {
            let field = error.field.map { String($0.prefix { $0 != "." }) } ?? "provider"
            entry.error = (field, error.reason)
            return .refused(entry)
        }
    }

    /// The page's values: the connections, the form (as posted, after a refusal), the events, and after a connect or
    /// a delete its confirmation.
    func values(merchantID: String, entry: Entry, connected: String?, deleted: String?) async throws -> [String: Any] {
        let list = try await connections.list(merchantID: merchantID)
        let recent = try await events.recentCarrierEvents(merchantID: merchantID, limit: Self.eventCount)
        var values: [String: Any] = [:]
        values["script"] = "carriers.js"
        values["connections"] = list.map(connectionValues)
        values["hasConnections"] = !list.isEmpty
        // Only one of the merchant's own connections is announced: the id comes from the address bar.
        if let connected, let record = list.first(where: { $0.id == connected }) {
            values["connected"] = [
                "providerName": Self.provider(record.provider)?.name ?? record.provider, "webhookURL": connections.webhookURL(record),
                "hint": Self.provider(record.provider)?.hint ?? "",
            ]
        }
        values["deleted"] = deleted ?? false
        values["providers"] = Self.providers.map { ["value": $0.value, "name": $0.name, "selected": $0.value == entry.provider] }
        values["jwksURL"] = entry.jwksURL
        values["statusMap"] = entry.statusMap
        if let error = entry.error {
            values["formError"] = error.message
            // The template's names for the fields' messages: providerError, secretError, jwksError, statusMapError.
            values[(error.field == "jwksURL" ? "jwks" : error.field) + "Error"] = error.message
        }
        let rows = recent.map(CarrierEventRow.init)
        // Not `events`: the layout reads that as the live-refresh stream's URL.
        values["carrierEvents"] = rows.map(\.templateValues)
        values["hasEvents"] = !rows.isEmpty
        values["eventCount"] = Self.eventCount
        let unmatched = recent.count(where: { $0.state == .unmatched })
        if unmatched > 0 { values["unmatchedCount"] = unmatched }
        return values
    }

    private func connectionValues(_ record: CarrierConnectionRecord) -> [String: Any] {
        let overrides = record.statusMap?.count ?? 0
        return [
            "id": record.id, "providerName": Self.provider(record.provider)?.name ?? record.provider, "webhookURL": connections.webhookURL(record),
            "createdISO": DateTimeFormat.formatRFC3339(record.createdAt), "created": OrderRow.format(record.createdAt),
            "hasStatusMap": overrides > 0, "statusMapCount": overrides, "statusMapPlural": overrides == 1 ? "" : "s",
        ]
    }
}

/// One carrier event as the page lists it: when it came, which parcel, where it stands and why, and the order it moved.
struct CarrierEventRow: Sendable {
    var record: CarrierEventRecord

    var templateValues: [String: Any] {
        let (label, tone) = Self.state(record.state)
        return [
            "receivedISO": DateTimeFormat.formatRFC3339(record.receivedAt), "received": OrderRow.format(record.receivedAt, withSeconds: true),
            "providerName": CarriersPage.provider(record.provider)?.name ?? record.provider, "trackingNumber": record.trackingNumber,
            "carrier": record.carrier ?? false, "stateLabel": label, "stateTone": tone,
            "outcome": record.outcome ?? (record.state == .pending ? "Waiting for the worker." : ""),
            "isUnmatched": record.state == .unmatched,
            "orderHref": record.match.map { DashboardRoutes.orderURL(type: $0.order.orderTypeIdentifier, id: $0.order.orderIdentifier) } ?? false,
            "orderIdentifier": record.match?.order.orderIdentifier ?? "", "fulfillmentIdentifier": record.match?.fulfillmentIdentifier ?? "",
        ]
    }

    static func state(_ state: CarrierEventState) -> (label: String, tone: String) {
        switch state {
        case .applied: ("Applied", "green")
        case .unmatched: ("Unmatched", "amber")
        case .ignored: ("Ignored", "grey")
        case .failed: ("Failed", "red")
        case .pending: ("Pending", "blue")
        }
    }
}
