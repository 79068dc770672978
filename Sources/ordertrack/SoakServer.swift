import Foundation
import OrderTrackServer
import Synchronization

/// An `ordertrack serve` child process for the soak: its own process, so the figures it is judged by (resident memory,
/// open descriptors, error-level log lines) are the server's alone, and so a fault can kill it as an operator's
/// machine would.
final class SoakServer: Sendable {
    let port: Int
    let dataDirectory: URL
    private let process: Process
    private let log = LogBox()

    final class LogBox: Sendable {
        let tally = Mutex(LogTally())
    }

    /// The server's log as the soak judges it: error-level lines counted, the first few kept for the report.
    struct LogTally {
        var errors = 0
        var firstErrors: [String] = []
        var partial = ""
    }

    /// Starts `ordertrack serve` in development mode on SQLite in `dataDirectory`, pushing to the mock APNs at
    /// `apnsEndpoint` (trusting `apnsRootPEM`), without the abuse limits a soak's single client address would trip.
    init(dataDirectory: URL, apnsEndpoint: URL, apnsRootPEM: String) throws {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let root = dataDirectory.appendingPathComponent("mock-apns-root.pem")
        try Data(apnsRootPEM.utf8).write(to: root)
        port = try Self.freePort()
        self.dataDirectory = dataDirectory
        let executable = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        process = Process()
        process.executableURL = executable
        process.arguments = [
            "serve", "--port", String(port), "--data-dir", dataDirectory.appendingPathComponent("data").path, "--dev",
            "--apns-endpoint", apnsEndpoint.absoluteString, "--apns-ca-file", root.path, "--max-registrations-per-order", "0",
            "--rate-limit-per-address", "0", "--rate-limit-per-order-token", "0", "--rate-limit-per-api-key", "0", "--rate-limit-failed-auth", "0",
            "--public-url", "http://127.0.0.1:\(port)",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [log] handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            log.tally.withLock { tally in
                let text = tally.partial + String(decoding: data, as: UTF8.self)
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                tally.partial = String(lines.removeLast())
                for line in lines where Self.isError(line) {
                    tally.errors += 1
                    if tally.firstErrors.count < 5 { tally.firstErrors.append(String(line.prefix(400))) }
                }
            }
        }
        try process.run()
    }

    /// Whether a swift-log line (`2026-11-28T21:40:34+0000 error ordertrack: …`) is at error level or above.
    static func isError(_ line: Substring) -> Bool {
        let fields = line.split(separator: " ", maxSplits: 2)
        return fields.count >= 2 && (fields[1] == "error" || fields[1] == "critical")
    }

    var base: String { "http://127.0.0.1:\(port)" }
    var errors: (count: Int, first: [String]) { log.tally.withLock { ($0.errors, $0.firstErrors) } }

    /// The demo merchant's key and order type, once the server wrote them.
    func credentials() throws -> DevelopmentCredentials {
        let file = dataDirectory.appendingPathComponent("data/dev-credentials.json")
        return try JSONDecoder().decode(DevelopmentCredentials.self, from: Data(contentsOf: file))
    }

    /// Resident memory in bytes, from `/proc/<pid>/status`.
    func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }

    /// Open file descriptors, from `/proc/<pid>/fd`.
    func openDescriptors() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd"))?.count
    }

    /// Stops the server as an operator does (SIGTERM, a graceful shutdown) and waits for it.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// A loopback port nobody listens on now.
    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw usageError("no socket for a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw usageError("no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
