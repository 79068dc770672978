import Foundation
import OrderPersistence

/// Creates, lists, rotates, enables and deletes merchants' webhook endpoints, and resends deliveries; shared by the
/// merchant API, the dashboard and the command line. A platform's endpoints, sent every merchant's events, are the
/// instance operator's: only the command line makes them.
public struct WebhookEndpoints: Sendable {
    let store: any WebhookStore & EventLog
    let configuration: WebhookConfiguration
    let isDevelopment: Bool
    let sender: WebhookSender
    let now: @Sendable () -> Date

    /// The longest URL accepted, in UTF-8 bytes.
    public static let maximumURLLength = 2048
    /// The longest description accepted, in UTF-8 bytes.
    public static let maximumDescriptionLength = 512

    /// A service over `store`; `isDevelopment` also accepts `http://127.0.0.1` and `http://localhost` URLs.
    public init(store: any WebhookStore & EventLog, configuration: WebhookConfiguration, isDevelopment: Bool, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.configuration = configuration
        self.isDevelopment = isDevelopment
        self.sender = WebhookSender(configuration: configuration, isDevelopment: isDevelopment, now: now)
        self.now = now
    }

    /// An endpoint as it was created or rotated: the record, and the secret to show this once.
    public struct Created: Sendable {
        public var endpoint: WebhookEndpointRecord
        public var secret: String
    }

    /// Makes an endpoint for `merchantID`.
    ///
    /// - Throws: ``OrderTrackError/Code/invalidWebhookEndpoint`` naming the field at fault.
    public func create(merchantID: String, url: String, events: [String], description: String?) async throws -> Created {
        let fields = try checkedFields(url: url, events: events, description: description)
        let secret = Self.newSecret()
        let record = WebhookEndpointRecord(
            id: randomID("we_"), merchantID: merchantID, url: fields.url, events: fields.events, description: fields.description, secret: secret,
            createdAt: now())
        do {
            return Created(endpoint: try await store.addWebhookEndpoint(record, limit: configuration.maximumEndpoints), secret: secret)
        } catch OrderStoreError.invalidArgument(_, let reason) {
            throw invalid("url", reason)
        }
    }

    public func list(merchantID: String) async throws -> [WebhookEndpointRecord] {
        try await store.webhookEndpoints(merchantID: merchantID)
    }

    /// - Throws: ``OrderTrackError/Code/notFound`` for an id the merchant has no endpoint with.
    public func endpoint(merchantID: String, id: String) async throws -> WebhookEndpointRecord {
        try found(try await store.webhookEndpoint(id: id, merchantID: merchantID), id)
    }

    public func delete(merchantID: String, id: String) async throws {
        guard try await store.deleteWebhookEndpoint(id: id, merchantID: merchantID) else { throw notFound(id) }
    }

    /// A new secret; the current one keeps signing beside it for ``WebhookConfiguration/rotationOverlap``.
    public func rotateSecret(merchantID: String, id: String) async throws -> Created {
        let secret = Self.newSecret()
        let until = now().addingTimeInterval(configuration.rotationOverlap.seconds)
        let record = try found(try await store.rotateWebhookSecret(id: id, merchantID: merchantID, secret: secret, previousUntil: until), id)
        return Created(endpoint: record, secret: secret)
    }

    public func enable(merchantID: String, id: String) async throws -> WebhookEndpointRecord {
        try found(try await store.enableWebhookEndpoint(id: id, merchantID: merchantID), id)
    }

    public func deliveries(merchantID: String, id: String, after cursor: String?, limit: Int) async throws -> WebhookDeliveryPage {
        _ = try await endpoint(merchantID: merchantID, id: id)
        do {
            return try await store.webhookDeliveries(endpointID: id, after: cursor, limit: limit)
        } catch OrderStoreError.invalidCursor {
            throw OrderTrackError(.invalidCursor, "after must be a nextCursor value returned by this endpoint", field: "after")
        }
    }

    /// Sends a delivery's event again now, out of band (the endpoint's cursor and failure state stay as they are),
    /// and logs it as a new delivery.
    public func resend(merchantID: String, id: String, deliveryID: String) async throws -> WebhookDeliveryRecord {
        let endpoint = try await endpoint(merchantID: merchantID, id: id)
        guard let delivery = try await store.webhookDelivery(id: deliveryID, endpointID: id) else {
            throw OrderTrackError(.notFound, "no delivery \(deliveryID.prefix(64)) of webhook endpoint \(id.prefix(64))")
        }
        guard let event = try await store.event(id: delivery.eventID, merchantID: merchantID) else {
            throw OrderTrackError(.notFound, "event \(delivery.eventID) is no longer kept (events are deleted with the push log)")
        }
        return try await store.logWebhookResend(of: delivery, await sender.send(event, to: endpoint))
    }

    // MARK: A platform's endpoints

    /// A platform endpoint as it was created or rotated: the record, and the secret to show this once.
    public struct CreatedForPlatform: Sendable {
        public var endpoint: PlatformWebhookEndpointRecord
        public var secret: String
    }

    /// Makes an endpoint that is sent every merchant's events, those of merchants created later too.
    ///
    /// - Throws: ``OrderTrackError/Code/invalidWebhookEndpoint`` naming the field at fault.
    public func createForPlatform(url: String, events: [String], description: String?) async throws -> CreatedForPlatform {
        let fields = try checkedFields(url: url, events: events, description: description)
        let secret = Self.newSecret()
        let record = PlatformWebhookEndpointRecord(
            id: randomID("wep_"), url: fields.url, events: fields.events, description: fields.description, secret: secret, createdAt: now())
        do {
            return CreatedForPlatform(
                endpoint: try await store.addPlatformWebhookEndpoint(record, limit: configuration.maximumEndpoints), secret: secret)
        } catch OrderStoreError.invalidArgument(_, let reason) {
            throw invalid("url", reason)
        }
    }

    public func listForPlatform() async throws -> [PlatformWebhookEndpointRecord] {
        try await store.platformWebhookEndpoints()
    }

    public func deleteForPlatform(id: String) async throws {
        guard try await store.deletePlatformWebhookEndpoint(id: id) else { throw platformNotFound(id) }
    }

    /// A new secret for the endpoint and every merchant's share; the current one keeps signing beside it for
    /// ``WebhookConfiguration/rotationOverlap``.
    public func rotateSecretForPlatform(id: String) async throws -> CreatedForPlatform {
        let secret = Self.newSecret()
        let until = now().addingTimeInterval(configuration.rotationOverlap.seconds)
        guard let record = try await store.rotatePlatformWebhookSecret(id: id, secret: secret, previousUntil: until) else {
            throw platformNotFound(id)
        }
        return CreatedForPlatform(endpoint: record, secret: secret)
    }

    /// Enables every merchant's share that was disabled, each resuming at the event it stopped at.
    public func enableForPlatform(id: String) async throws -> PlatformWebhookEndpointRecord {
        guard let record = try await store.enablePlatformWebhookEndpoint(id: id) else { throw platformNotFound(id) }
        return record
    }

    public func deliveriesForPlatform(id: String, limit: Int) async throws -> [PlatformWebhookDelivery] {
        guard try await store.platformWebhookEndpoint(id: id) != nil else { throw platformNotFound(id) }
        return try await store.platformWebhookDeliveries(id: id, limit: limit)
    }

    private func platformNotFound(_ id: String) -> OrderTrackError {
        OrderTrackError(.notFound, "no platform webhook endpoint \(id.prefix(64))")
    }

    static func newSecret() -> String { "whsec_" + Secrets.randomToken(bytes: 32) }

    private func randomID(_ prefix: String) -> String { prefix + Secrets.randomToken(bytes: 12) }

    /// An absolute http(s) URL without credentials or fragment: https only, but for loopback URLs in development mode.
    static func checkedURL(_ text: String, isDevelopment: Bool) throws -> String {
        guard text.utf8.count <= Self.maximumURLLength else { throw invalid("url", "url must be at most \(Self.maximumURLLength) bytes") }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host,
            !host.isEmpty, let url = components.url
        else { throw invalid("url", "url must be an absolute https:// URL, such as https://shop.example.com/ordertrack-webhooks") }
        guard components.user == nil, components.password == nil else { throw invalid("url", "url must not carry a user name or password") }
        guard components.fragment == nil else { throw invalid("url", "url must not have a #fragment") }
        let loopback = ["127.0.0.1", "localhost", "[::1]", "::1"].contains(host.lowercased())
        switch scheme {
        case "https": break
        case "http" where isDevelopment && loopback: break
        default:
            throw invalid(
                "url", isDevelopment ? "url must be https://, or http://127.0.0.1 or http://localhost in development mode" : "url must be https://")
        }
        return url.absoluteString
    }

    /// A new endpoint's fields as stored, a merchant's or the platform's: the URL checked, the event types known and
    /// without repeats, the description within its length (an empty one none).
    private func checkedFields(url: String, events: [String], description: String?) throws -> (url: String, events: [String], description: String?) {
        let url = try Self.checkedURL(url, isDevelopment: isDevelopment)
        let events = try checkedEvents(events)
        if let description, description.utf8.count > Self.maximumDescriptionLength {
            throw invalid("description", "description must be at most \(Self.maximumDescriptionLength) bytes")
        }
        return (url, events, description.flatMap { $0.isEmpty ? nil : $0 })
    }

    private func checkedEvents(_ events: [String]) throws -> [String] {
        guard !events.isEmpty else { throw invalid("events", "events must list event types, or be [\"*\"] for all") }
        let known = Set(EventType.allCases.map(\.rawValue))
        for type in events where type != "*" && !known.contains(type) {
            throw invalid("events", "\(type.prefix(64)) is not an event type: use \(EventType.allCases.map(\.rawValue).joined(separator: ", ")) or *")
        }
        var seen = Set<String>()
        let unique = events.filter { seen.insert($0).inserted }
        return unique.contains("*") ? ["*"] : unique
    }

    private func found(_ record: WebhookEndpointRecord?, _ id: String) throws -> WebhookEndpointRecord {
        guard let record else { throw notFound(id) }
        return record
    }

    private func notFound(_ id: String) -> OrderTrackError {
        OrderTrackError(.notFound, "no webhook endpoint \(id.prefix(64)) of this merchant")
    }

    private func invalid(_ field: String, _ reason: String) -> OrderTrackError { Self.invalid(field, reason) }

    private static func invalid(_ field: String, _ reason: String) -> OrderTrackError {
        OrderTrackError(.invalidWebhookEndpoint, reason, field: field)
    }
}
