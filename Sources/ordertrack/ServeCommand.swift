import ArgumentParser
import Foundation
import Logging
import OrderTrackServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Wallet Orders web service and the merchant API. Every option can also be set as ORDERTRACK_<NAME> (e.g. ORDERTRACK_PORT).")

    @Option(help: "Address to listen on (default 127.0.0.1)")
    var host: String?

    @Option(help: "Port to listen on (default 8080)")
    var port: Int?

    @Option(help: "Data directory: database, development identity, credentials (default ./ordertrack-data)")
    var dataDir: String?

    @Option(help: "Database URL (default sqlite://<data-dir>/ordertrack.sqlite)")
    var database: String?

    @Option(help: "Base URL devices reach this server at (default http://<host>:<port>); orders get webServiceURL <public-url>/wallet")
    var publicURL: String?

    @Option(help: "APNs endpoint (default https://api.push.apple.com, production, which Wallet uses)")
    var apnsEndpoint: String?

    @Option(help: "Extra trusted root certificate (PEM) for the APNs endpoint, e.g. a local mock's CA")
    var apnsCAFile: String?

    @Option(help: "Seconds APNs keeps an undelivered push (apns-expiration; default 86400)")
    var apnsExpiration: Int?

    @Option(help: "Seconds a push claim lasts; a job whose instance died is sent by another after it (default 60)")
    var pushLeaseSeconds: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default info)")
    var logLevel: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func setting(_ value: String?, _ name: String) -> String? { value ?? environment["ORDERTRACK_\(name)"] }
        let levelText = setting(logLevel, "LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText) else {
            throw usageError("log level \"\(levelText)\" is not one of trace, debug, info, notice, warning, error, critical")
        }
        var portNumber = 8080
        if let port {
            portNumber = port
        } else if let text = environment["ORDERTRACK_PORT"] {
            guard let parsed = Int(text) else { throw usageError("ORDERTRACK_PORT=\"\(text)\" is not a port number") }
            portNumber = parsed
        }
        var push = PushConfiguration()
        if let text = setting(apnsEndpoint, "APNS_ENDPOINT") {
            guard let url = URL(string: text) else { throw usageError("--apns-endpoint \"\(text)\" is not a URL") }
            push.endpoint = url
        }
        if let path = setting(apnsCAFile, "APNS_CA_FILE") {
            guard let data = FileManager.default.contents(atPath: path) else { throw usageError("cannot read --apns-ca-file \(path)") }
            push.extraTrustRootsPEM = String(decoding: data, as: UTF8.self)
        }
        if let expiration = apnsExpiration ?? environment["ORDERTRACK_APNS_EXPIRATION"].flatMap(Int.init) {
            push.expiration = TimeInterval(expiration)
        }
        if let lease = pushLeaseSeconds ?? environment["ORDERTRACK_PUSH_LEASE_SECONDS"].flatMap(Int.init) {
            guard (1...3600).contains(lease) else { throw usageError("--push-lease-seconds \(lease) must be from 1 to 3600") }
            push.leaseDuration = TimeInterval(lease)
        }
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(
                host: setting(host, "HOST") ?? "127.0.0.1", port: portNumber, dataDirectory: setting(dataDir, "DATA_DIR") ?? "./ordertrack-data",
                databaseURL: setting(database, "DATABASE"), publicURL: setting(publicURL, "PUBLIC_URL"), push: push)
        } catch {
            throw usageError("\(error)")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardOutput(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "ordertrack")
        let server = try await OrderTrackServer.build(configuration: configuration, logger: logger) { port in
            announce("OrderTrack listening on \(configuration.host):\(port); devices use \(configuration.webServiceURL)")
        }
        if let credentials = server.developmentCredentials {
            announce("""

                OrderTrack created a demo merchant and a development signing identity (not trusted by Wallet).
                  API key:     \(credentials.apiKey)
                  credentials: \(configuration.dataDirectory.appendingPathComponent("dev-credentials.json").path)
                Create an order:

                \(server.developmentExample ?? "")

                """)
        }
        try await server.run()
    }
}
