import ArgumentParser
import Foundation
import OrderModel
import OrderPersistence
import OrderTrackServer

/// `ordertrack webhooks`: webhook endpoints, on the database directly: a merchant's (`--merchant`), as
/// `/api/v1/webhook-endpoints` makes them, or a platform's (`--all-merchants`), sent every merchant's events, which only
/// this command makes. Running servers send to a new endpoint within a second.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Webhook endpoints events are POSTed to, signed: a merchant's, or a platform's for every merchant.",
        subcommands: [
            CreateWebhookCommand.self, ListWebhooksCommand.self, DeleteWebhookCommand.self, RotateWebhookSecretCommand.self,
            EnableWebhookCommand.self, WebhookDeliveriesCommand.self,
        ])
}

/// What the webhook commands share: whose endpoints, and the database.
struct WebhookOptions: ParsableArguments {
    @Option(help: "Merchant id: the merchant's own endpoints") var merchant: String?
    @Flag(help: "The platform's endpoints, sent the events of every merchant (those created later too), each naming its merchant")
    var allMerchants = false
    @Flag(help: "Accept http://127.0.0.1 and http://localhost URLs, as a server in development mode does") var development = false
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard (merchant != nil) != allMerchants else { throw ValidationError("Give either --merchant <id> or --all-merchants.") }
    }

    /// Runs `body` with the endpoints service on the open store; domain errors are reported as problems (exit 1).
    func withEndpoints<Value>(_ body: (WebhookEndpoints) async throws -> Value) async throws -> Value {
        try await database.withStore { store in
            try await reportingDomainProblems {
                try await body(WebhookEndpoints(store: store, configuration: WebhookConfiguration(), isDevelopment: development, now: Date.init))
            }
        }
    }

    /// Runs the merchant's variant of a command, or the platform's.
    func run<Value>(
        merchant merchantBody: (WebhookEndpoints, String) async throws -> Value, platform platformBody: (WebhookEndpoints) async throws -> Value
    ) async throws -> Value {
        try await withEndpoints { endpoints in
            if let merchant { try await merchantBody(endpoints, merchant) } else { try await platformBody(endpoints) }
        }
    }

    struct Shown: Encodable {
        var id, url, status, createdAt: String
        var events: [String]
        var description, disabledReason, secret: String?
        /// A platform endpoint's: how many merchants it hears, and the merchants whose share is disabled, with why.
        var merchants: Int?
        var disabledMerchants: [String: String]?
    }

    static func json(_ shown: Shown) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(shown)) ?? Data(), as: UTF8.self)
    }

    /// An endpoint as JSON, with its secret when it was just made or rotated.
    static func json(_ record: WebhookEndpointRecord, secret: String? = nil) -> String {
        json(
            Shown(
                id: record.id, url: record.url, status: record.status.rawValue, createdAt: DateTimeFormat.formatRFC3339(record.createdAt),
                events: record.events, description: record.description, disabledReason: record.disabledReason, secret: secret))
    }

    /// A platform endpoint as JSON: `disabled` while any merchant's share is.
    static func json(_ record: PlatformWebhookEndpointRecord, secret: String? = nil) -> String {
        json(
            Shown(
                id: record.id, url: record.url, status: record.disabledMerchants.isEmpty ? "enabled" : "disabled",
                createdAt: DateTimeFormat.formatRFC3339(record.createdAt), events: record.events, description: record.description,
                disabledReason: nil, secret: secret, merchants: record.merchants, disabledMerchants: record.disabledMerchants))
    }
}

struct CreateWebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Add an endpoint; prints it as JSON with its signing secret, shown only now.")

    @Option(help: "The https:// URL events are POSTed to") var url: String
    @Option(help: "Event types, comma-separated (order.created,order.updated,…), or * for all") var events = "*"
    @Option(help: "A note about it") var description: String?
    @OptionGroup var options: WebhookOptions

    func run() async throws {
        let types = events.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let shown = try await options.run { endpoints, merchant in
            let created = try await endpoints.create(merchantID: merchant, url: url, events: types, description: description)
            return WebhookOptions.json(created.endpoint, secret: created.secret)
        } platform: { endpoints in
            let created = try await endpoints.createForPlatform(url: url, events: types, description: description)
            return WebhookOptions.json(created.endpoint, secret: created.secret)
        }
        print(shown)
    }
}

struct ListWebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List endpoints (never their secrets), a line each.")

    @OptionGroup var options: WebhookOptions

    func run() async throws {
        let lines = try await options.run { endpoints, merchant in
            try await endpoints.list(merchantID: merchant).map { record in
                [record.id, record.status.rawValue, record.events.joined(separator: ","), record.url, record.disabledReason ?? ""]
                    .joined(separator: "\t")
            }
        } platform: { endpoints in
            try await endpoints.listForPlatform().map { record in
                let status =
                    record.disabledMerchants.isEmpty
                    ? "enabled for \(record.merchants) merchant\(record.merchants == 1 ? "" : "s")"
                    : "disabled for \(record.disabledMerchants.count) of \(record.merchants) merchants"
                return [record.id, status, record.events.joined(separator: ","), record.url].joined(separator: "\t")
            }
        }
        for line in lines { print(line) }
    }
}

struct DeleteWebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an endpoint and its delivery log.")

    @Argument(help: "The endpoint id (we_… of a merchant, wep_… of the platform)") var id: String
    @OptionGroup var options: WebhookOptions

    func run() async throws {
        try await options.run {
            try await $0.delete(merchantID: $1, id: id)
        } platform: {
            try await $0.deleteForPlatform(id: id)
        }
        print("deleted \(id)")
    }
}

struct RotateWebhookSecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-secret",
        abstract: "Give an endpoint a new signing secret, printed as JSON; the old one keeps signing beside it for 24 hours.")

    @Argument(help: "The endpoint id (we_… of a merchant, wep_… of the platform)") var id: String
    @OptionGroup var options: WebhookOptions

    func run() async throws {
        let shown = try await options.run { endpoints, merchant in
            let rotated = try await endpoints.rotateSecret(merchantID: merchant, id: id)
            return WebhookOptions.json(rotated.endpoint, secret: rotated.secret)
        } platform: { endpoints in
            let rotated = try await endpoints.rotateSecretForPlatform(id: id)
            return WebhookOptions.json(rotated.endpoint, secret: rotated.secret)
        }
        print(shown)
    }
}

struct EnableWebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable", abstract: "Enable an endpoint disabled after days of failures; it resumes at the event it stopped at.")

    @Argument(help: "The endpoint id (we_… of a merchant, wep_… of the platform)") var id: String
    @OptionGroup var options: WebhookOptions

    func run() async throws {
        let shown = try await options.run {
            WebhookOptions.json(try await $0.enable(merchantID: $1, id: id))
        } platform: {
            WebhookOptions.json(try await $0.enableForPlatform(id: id))
        }
        print(shown)
    }
}

struct WebhookDeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries",
        abstract:
            "An endpoint's newest deliveries, a line each: id, merchant (platform endpoints), event type, status, attempts, answer, latency, time.")

    @Argument(help: "The endpoint id (we_… of a merchant, wep_… of the platform)") var id: String
    @Option(help: "How many, newest first (1–100)") var limit = 20
    @OptionGroup var options: WebhookOptions

    func run() async throws {
        let line = { (merchant: String?, delivery: WebhookDeliveryRecord) -> String in
            ([delivery.id] + (merchant.map { [$0] } ?? []) + [
                delivery.eventType, delivery.status.rawValue, "\(delivery.attempts)", delivery.responseStatus.map(String.init) ?? "-",
                delivery.latencyMilliseconds.map { "\($0) ms" } ?? "-", DateTimeFormat.formatRFC3339(delivery.updatedAt), delivery.error ?? "",
            ]).joined(separator: "\t")
        }
        let lines = try await options.run { endpoints, merchant in
            try await endpoints.deliveries(merchantID: merchant, id: id, after: nil, limit: limit).deliveries.map { line(nil, $0) }
        } platform: { endpoints in
            try await endpoints.deliveriesForPlatform(id: id, limit: limit).map { line($0.merchantID, $0.delivery) }
        }
        for line in lines { print(line) }
    }
}
