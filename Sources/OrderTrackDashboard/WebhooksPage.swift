import Foundation
import OrderModel
import OrderPersistence
import OrderTrackServer

/// The Webhooks page: adds, deletes, rotates and enables endpoints through ``WebhookEndpoints``, the service
/// `/api/v1/webhook-endpoints` calls (so the page refuses and stores exactly what the API would), and lists each
/// endpoint's recent deliveries with a resend button. A secret is shown once, in the answer to the form that made it.
struct WebhooksPage: Sendable {
    static let path = "/dashboard/webhooks"
    /// Deliveries listed per endpoint, newest first.
    static let deliveryCount = 10

    let endpoints: WebhookEndpoints

    /// What a form did, for the page to say.
    struct Notice: Sendable {
        var message: String
        /// A secret to show this once, with the endpoint it signs for.
        var secret: String?
        var isError = false
        var url = ""
        var events = "*"
    }

    /// Adds the endpoint the form describes; a refusal is shown beside the form, as posted.
    func add(merchantID: String, form: DashboardForm) async throws -> Notice {
        let url = (form["url"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let events = (form["events"] ?? "*").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let description = form["description"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        do {
            let created = try await endpoints.create(merchantID: merchantID, url: url, events: events, description: description)
            return Notice(message: "Endpoint \(created.endpoint.id) added. Its signing secret is shown only now:", secret: created.secret)
        } catch let error as OrderTrackError where error.code == .invalidWebhookEndpoint {
            return Notice(message: "Not added: \(error.reason)", isError: true, url: url, events: events.joined(separator: ","))
        }
    }

    /// The page's values: the endpoints with their recent deliveries, and what the last form did.
    func values(merchantID: String, notice: Notice?) async throws -> [String: Any] {
        var rows: [[String: Any]] = []
        for record in try await endpoints.list(merchantID: merchantID) {
            let deliveries = try await endpoints.deliveries(merchantID: merchantID, id: record.id, after: nil, limit: Self.deliveryCount)
            rows.append([
                "id": record.id, "url": record.url, "events": record.events.joined(separator: ", "), "description": record.description ?? false,
                "enabled": record.status == .enabled, "disabledReason": record.disabledReason ?? false,
                "created": OrderRow.format(record.createdAt), "createdISO": DateTimeFormat.formatRFC3339(record.createdAt),
                "deliveries": deliveries.deliveries.map(Self.deliveryValues), "hasDeliveries": !deliveries.deliveries.isEmpty,
            ])
        }
        // Not `events`: the layout reads that as the live-refresh stream's URL.
        var values: [String: Any] = [
            "script": "webhooks.js", "endpoints": rows, "hasEndpoints": !rows.isEmpty, "url": notice?.url ?? "", "eventList": notice?.events ?? "*",
        ]
        values["eventTypes"] = EventType.allCases.map(\.rawValue).joined(separator: ", ")
        if let notice {
            values[notice.isError ? "formError" : "notice"] = notice.message
            values["secret"] = notice.secret ?? false
        }
        return values
    }

    static func deliveryValues(_ delivery: WebhookDeliveryRecord) -> [String: Any] {
        let tone =
            switch delivery.status {
            case .succeeded: "green"
            case .pending: "amber"
            case .failed: "red"
            }
        return [
            "id": delivery.id, "endpointId": delivery.endpointID, "eventId": delivery.eventID, "eventType": delivery.eventType,
            "status": delivery.status.rawValue, "tone": tone,
            "attempts": delivery.attempts, "responseStatus": delivery.responseStatus.map(String.init) ?? "—",
            "latency": delivery.latencyMilliseconds.map { "\($0) ms" } ?? "—",
            "error": delivery.error ?? false, "updated": OrderRow.format(delivery.updatedAt, withSeconds: true),
            "updatedISO": DateTimeFormat.formatRFC3339(delivery.updatedAt), "isResend": delivery.resendOf != nil,
        ]
    }
}
