import ArgumentParser
import Foundation
import OrderModel
import OrderPersistence
import OrderTrackServer

/// `ordertrack carriers`: merchants' connections to carrier tracking providers, as `/api/v1/carrier-connections`
/// makes them, on the database directly.
struct CarrierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carriers", abstract: "Carrier tracking connections (webhooks from AfterShip, EasyPost, Shippo, ShipEngine, generic).",
        subcommands: [ConnectCarrierCommand.self, ListCarriersCommand.self, DeleteCarrierCommand.self])
}

/// What the carrier commands share: the merchant, the database and the public URL webhook URLs are made from.
struct CarrierOptions: ParsableArguments {
    @Option(help: "Merchant id") var merchant: String
    @Option(help: "The server's public URL, as serve's --public-url (or ORDERTRACK_PUBLIC_URL); webhook URLs start with it")
    var publicURL: String?
    @OptionGroup var database: DatabaseOptions

    /// Runs `body` with the connections service on the open store; domain errors are reported as problems (exit 1).
    /// Commands that print webhook URLs need the public URL (`printsURLs`).
    func withConnections<Value>(printsURLs: Bool = true, _ body: (CarrierConnections) async throws -> Value) async throws -> Value {
        let publicURL = publicURL ?? ProcessInfo.processInfo.environment["ORDERTRACK_PUBLIC_URL"]
        if printsURLs, publicURL == nil {
            throw usageError("--public-url (or ORDERTRACK_PUBLIC_URL) is needed to print webhook URLs, like https://orders.example.com")
        }
        let base = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
        return try await database.withStore { store in
            try await reportingDomainProblems { try await body(CarrierConnections(store: store, publicURL: base)) }
        }
    }
}

struct ConnectCarrierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect a provider for a merchant; prints the connection and the webhook URL to give the provider, as JSON.")

    @Option(help: "aftership, easypost, shippo, shipengine or generic") var provider: String
    @Option(help: "File holding the provider's webhook signing secret (not for shipengine); or ORDERTRACK_CARRIER_SECRET")
    var secretFile: String?
    @Option(help: "shipengine only: the JWKS URL its keys are published at (default https://api.shipengine.com/jwks)")
    var jwksURL: String?
    @Option(help: "A status map override, providerStatus=walletStatus (or =none); repeatable")
    var status: [String] = []
    @OptionGroup var options: CarrierOptions

    func run() async throws {
        // The secret is read from a file or the environment, never the command line, where ps and shell history see it.
        let secret =
            try secretFile.map { try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
            ?? ProcessInfo.processInfo.environment["ORDERTRACK_CARRIER_SECRET"]
        var statusMap: [String: String] = [:]
        for entry in status {
            guard let equals = entry.firstIndex(of: "=") else { throw usageError("--status \(entry): use providerStatus=walletStatus") }
            statusMap[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        let creation = CarrierConnections.Creation(
            provider: provider, secret: provider == "shipengine" ? nil : secret, jwksURL: jwksURL, statusMap: statusMap.isEmpty ? nil : statusMap)
        let json = try await options.withConnections { connections in
            let record = try await connections.create(merchantID: options.merchant, creation)
            return Self.json(record, webhookURL: connections.webhookURL(record))
        }
        print(json)
    }

    static func json(_ record: CarrierConnectionRecord, webhookURL: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var fields = [
            "id": record.id, "provider": record.provider, "webhookURL": webhookURL, "createdAt": DateTimeFormat.formatRFC3339(record.createdAt),
        ]
        fields["jwksURL"] = record.jwksURL
        return String(decoding: (try? encoder.encode(fields)) ?? Data(), as: UTF8.self)
    }
}

struct ListCarriersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List a merchant's connections and their webhook URLs (never their secrets).")

    @OptionGroup var options: CarrierOptions

    func run() async throws {
        let lines = try await options.withConnections { connections in
            try await connections.list(merchantID: options.merchant).map { record in
                "\(record.id)\t\(record.provider)\t\(DateTimeFormat.formatRFC3339(record.createdAt))\t\(connections.webhookURL(record))"
            }
        }
        for line in lines { print(line) }
    }
}

struct DeleteCarrierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a merchant's connection and its events; running servers stop accepting its webhooks within 30 seconds.")

    @Argument(help: "The connection id (cc_…)") var id: String
    @OptionGroup var options: CarrierOptions

    func run() async throws {
        try await options.withConnections(printsURLs: false) { connections in try await connections.delete(merchantID: options.merchant, id: id) }
        print("deleted \(id)")
    }
}
