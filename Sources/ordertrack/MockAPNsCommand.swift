import ArgumentParser
import Foundation
import MockAPNs
import UnixSignals

/// `ordertrack mock-apns`: a local stand-in for APNs (HTTP/2 over TLS) for tests and demos.
struct MockAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-apns",
        abstract: "Run a mock APNs (HTTP/2 over TLS) that checks pushes like APNs, records them and injects faults chosen by token.",
        discussion: """
            Fault tokens (hex prefixes): fa170410 410 Unregistered with timestamp, fa170400 400 BadDeviceToken, \
            fa170429 429 TooManyRequests, fa170500 500 InternalServerError, fa170503 503 ServiceUnavailable, \
            fa17dead connection dropped, fa17c105 stream reset, fa17de1a slow answer, fa17f<N> (N = 1-f) 503 for the first N attempts. \
            Runs until SIGINT or SIGTERM.
            """)

    @Option(help: "Address to listen on")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one; the chosen port is printed)")
    var port: Int

    @Option(help: "PEM file with the server certificate chain, leaf first")
    var tlsCert: String

    @Option(help: "PEM file with the server's private key")
    var tlsKey: String

    @Option(help: "Write every answered request to this file (created or emptied first) as one JSON object per line; accepted pushes have status 200")
    var record: String?

    @Option(help: "Require TLS client certificates issued by the CA certificates in this PEM file")
    var clientCA: String?

    @Option(help: "Require provider tokens (ES256 JWT) verified with this PEM public key; needs --key-id and --team-id")
    var tokenPublicKey: String?

    @Option(help: "Key id the provider tokens must name")
    var keyID: String?

    @Option(help: "Team id the provider tokens must name")
    var teamID: String?

    @Option(help: "Accept only this topic (repeatable); others get 400 DeviceTokenNotForTopic")
    var topic: [String] = []

    @Option(help: "Seconds a slow answer (fa17de1a tokens) waits")
    var slowDelay: Double = 5

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard slowDelay >= 0 else { throw ValidationError("--slow-delay must not be negative") }
        if tokenPublicKey != nil, keyID == nil || teamID == nil {
            throw ValidationError("--token-public-key needs --key-id and --team-id")
        }
        if clientCA != nil, tokenPublicKey != nil {
            throw ValidationError("choose one of --client-ca and --token-public-key")
        }
    }

    func run() async throws {
        func read(_ path: String, _ what: String) throws -> String {
            do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw usageError("cannot read \(what) \(path): \(error.localizedDescription)")
            }
        }
        var configuration = MockAPNsConfiguration(
            tlsCertificateChainPEM: try read(tlsCert, "--tls-cert"), tlsPrivateKeyPEM: try read(tlsKey, "--tls-key"))
        configuration.host = host
        configuration.port = port
        configuration.slowResponseDelay = .milliseconds(Int(slowDelay * 1000))
        if !topic.isEmpty { configuration.allowedTopics = Set(topic) }
        if let clientCA {
            configuration.authentication = .clientCertificate(trustRootsPEM: try read(clientCA, "--client-ca"))
        } else if let tokenPublicKey, let keyID, let teamID {
            configuration.authentication = .providerToken(
                keyID: keyID, teamID: teamID, publicKeyPEM: try read(tokenPublicKey, "--token-public-key"))
        }
        if let record {
            let recorder = try RecordFile(path: record)
            configuration.onRequest = { recorder.append($0) }
        }
        let server: MockAPNsServer
        do {
            server = try await MockAPNsServer.start(configuration)
        } catch {
            reportProblems(["\(error)"])
            throw ExitCode(1)
        }
        // Trapped before the port is printed: a caller may signal as soon as it reads it.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        FileHandle.standardOutput.write(Data("mock APNs listening on \(host):\(server.port)\n".utf8))
        for await _ in signals { break }
        try await server.shutdown()
    }
}

/// Writes answered requests as JSON lines, one write per line, in answer order.
private final class RecordFile: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    private let encoder: JSONEncoder

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw usageError("cannot create the --record file \(path)")
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    func append(_ push: RecordedPush) {
        lock.withLock {
            guard let line = try? encoder.encode(push) else { return }
            handle.write(line + Data("\n".utf8))
        }
    }
}
