import ArgumentParser
import Foundation
import OrderModel
import OrderPersistence
import OrderTrackServer

/// `ordertrack webhooks`: merchants' webhook endpoints, as `/api/v1/webhook-endpoints` makes them, on the database
/// directly. Running servers send to a new endpoint within a second.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Webhook endpoints the merchant's events are POSTed to, signed.",
        subcommands: [CreateWebhookCommand.self, ListWebhooksCommand.self, DeleteWebhookCommand.self, RotateWebhookSecretCommand.self])
}

/// What the webhook commands share: the merchant and the database.
struct WebhookOptions: ParsableArguments {
    @Option(help: "Merchant id") var merchant: String
    @Flag(help: "Accept http://127.0.0.1 and http://localhost URLs, as a server in development mode does") var development = false
    @OptionGroup var database: DatabaseOptions

    /// Runs `body` with the endpoints service on the open store; domain errors are reported as problems (exit 1).
    func withEndpoints<Value>(_ body: (WebhookEndpoints) async throws -> Value) async throws -> Value {
        try await database.withStore { store in
            try await reportingDomainProblems {
                try await body(WebhookEndpoints(store: store, configuration: WebhookConfiguration(), isDevelopment: development, now: Date.init))
            }
        }
    }

    /// An endpoint as JSON, with its secret when it was just made or rotated.
    static func json(_ record: WebhookEndpointRecord, secret: String? = nil) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        struct Shown: Encodable {
            var id, url, status, createdAt: String
            var events: [String]
            var description, disabledReason, secret: String?
        }
        let shown = Shown(
            id: record.id, url: record.url, status: record.status.rawValue, createdAt: DateTimeFormat.formatRFC3339(record.createdAt),
            events: record.events, description: record.description, disabledReason: record.disabledReason, secret: secret)
        return String(decoding: (try? encoder.encode(shown)) ?? Data(), as: UTF8.self)
    }
}

struct CreateWebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Add an endpoint; prints it as JSON with its signing secret, shown only now.")

    @Option(help: "The https:// URL events are POSTed to") var url: String
    @Option(help: "Event types, comma-separated (order.created,order.updated,…), or * for all") var events = "*"
    @Option(help: "A note for the merchant") var description: String?
    @OptionGroup var options: WebhookOptions

    func run() async throws {
        let types = events.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let created = try await options.withEndpoints {
            try await $0.create(merchantID: options.merchant, url: url, events: types, description: description)
        }
        print(WebhookOptions.json(created.endpoint, secret: created.secret))
    }
}

struct ListWebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a merchant's endpoints (never their secrets).")

    @OptionGroup var options: WebhookOptions

    func run() async throws {
        let lines = try await options.withEndpoints { endpoints in
            try await endpoints.list(merchantID: options.merchant).map { record in
                [record.id, record.status.rawValue, record.events.joined(separator: ","), record.url, record.disabledReason ?? ""]
                    .joined(separator: "\t")
            }
        }
        for line in lines { print(line) }
    }
}

struct DeleteWebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a merchant's endpoint and its delivery log.")

    @Argument(help: "The endpoint id (we_…)") var id: String
    @OptionGroup var options: WebhookOptions

    func run() async throws {
        try await options.withEndpoints { try await $0.delete(merchantID: options.merchant, id: id) }
        print("deleted \(id)")
    }
}

struct RotateWebhookSecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-secret",
        abstract: "Give an endpoint a new signing secret, printed as JSON; the old one keeps signing beside it for 24 hours.")

    @Argument(help: "The endpoint id (we_…)") var id: String
    @OptionGroup var options: WebhookOptions

    func run() async throws {
        let rotated = try await options.withEndpoints { try await $0.rotateSecret(merchantID: options.merchant, id: id) }
        print(WebhookOptions.json(rotated.endpoint, secret: rotated.secret))
    }
}
