import Foundation
import OrderTrackServer
import Synchronization

/// An `ordertrack serve` child process for the soak: its own process, so the figures it is judged by (resident memory,
/// open descriptors, error-level log lines) are the server's alone, and so a fault can kill it as an operator's
/// machine would.
final class SoakServer: Sendable {
    let port: Int
    let dataDirectory: URL
    private let arguments: [String]
    private let environment: [String: String]
    private let child: Mutex<Child>

    /// A running server and its exit, told by its termination handler: `Process.waitUntilExit()` spins the run loop of
    /// the calling thread and on Linux can miss an exit for good when several children run (the test suites hung in it).
    private struct Child {
        let process: Process
        let exited = DispatchSemaphore(value: 0)

        func waitForExit() { exited.wait() }

        /// Whether the process ended within `seconds`.
        func waitForExit(seconds: Double) -> Bool { exited.wait(timeout: .now() + seconds) == .success }
    }
    private let log: LogBox

    final class LogBox: Sendable {
        let tally = Mutex(LogTally())
        /// Where the raw log is appended, when kept.
        let file: FileHandle?

        init(file: FileHandle?) { self.file = file }
    }

    /// The server's log as the soak judges it: when each error-level line came, the first few kept for the report.
    struct LogTally {
        var errors: [ContinuousClock.Instant] = []
        var firstErrors: [String] = []
        var partial = ""
    }

    /// Starts `ordertrack serve` in development mode in `dataDirectory`, on SQLite there or on `databaseURL`, pushing
    /// to the mock APNs at `apnsEndpoint` (trusting `apnsRootPEM`), without the abuse limits a soak's single client
    /// address would trip. Instances sharing a database share `masterKey` (base64). With `logFile`, its log (of every
    /// start) is appended there.
    init(dataDirectory: URL, databaseURL: String?, masterKey: String?, apnsEndpoint: URL, apnsRootPEM: String, logFile: URL? = nil) throws {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let root = dataDirectory.appendingPathComponent("mock-apns-root.pem")
        try Data(apnsRootPEM.utf8).write(to: root)
        let port = try Self.freePort()
        self.port = port
        self.dataDirectory = dataDirectory
        let arguments =
            [
                "serve", "--port", String(port), "--data-dir", dataDirectory.appendingPathComponent("data").path, "--dev",
                "--apns-endpoint", apnsEndpoint.absoluteString, "--apns-ca-file", root.path, "--max-registrations-per-order", "0",
                "--rate-limit-per-address", "0", "--rate-limit-per-order-token", "0", "--rate-limit-per-api-key", "0", "--rate-limit-failed-auth",
                "0", "--lookup-rate-limit", "1000000",
                "--public-url", "http://127.0.0.1:\(port)",
            ] + (databaseURL.map { ["--database", $0] } ?? [])
        self.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ORDERTRACK_MASTER_KEY"] = masterKey
        self.environment = environment
        var file: FileHandle?
        if let logFile {
            try FileManager.default.createDirectory(at: logFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: logFile.path) { _ = FileManager.default.createFile(atPath: logFile.path, contents: nil) }
            file = try FileHandle(forWritingTo: logFile)
            try file?.seekToEnd()
        }
        let log = LogBox(file: file)
        self.log = log
        child = Mutex(try Self.launch(arguments, environment, log: log))
    }

    private static func launch(_ arguments: [String], _ environment: [String: String], log: LogBox) throws -> Child {
        let process = Process()
        let child = Child(process: process)
        process.terminationHandler = { [exited = child.exited] _ in exited.signal() }
        process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            log.tally.withLock { tally in
                // Under the lock: a restarted server's pipe may still be draining the previous one's last lines.
                try? log.file?.write(contentsOf: data)
                let text = tally.partial + String(decoding: data, as: UTF8.self)
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                tally.partial = String(lines.removeLast())
                for line in lines where Self.isError(line) {
                    tally.errors.append(.now)
                    if tally.firstErrors.count < 5 { tally.firstErrors.append(String(line.prefix(400))) }
                }
            }
        }
        try process.run()
        return child
    }

    /// A fault: the server killed as a power cut would (SIGKILL, no shutdown), then started again on the same port and
    /// data directory.
    func killAndRestart() throws {
        try child.withLock { child in
            kill(child.process.processIdentifier, SIGKILL)
            child.waitForExit()
            child = try Self.launch(arguments, environment, log: log)
        }
    }

    /// Whether a swift-log line (`2026-11-28T21:40:34+0000 error ordertrack: …`) is at error level or above.
    static func isError(_ line: Substring) -> Bool {
        let fields = line.split(separator: " ", maxSplits: 2)
        return fields.count >= 2 && (fields[1] == "error" || fields[1] == "critical")
    }

    var base: String { "http://127.0.0.1:\(port)" }
    /// When each error-level line came, and the first few.
    var errors: (times: [ContinuousClock.Instant], first: [String]) { log.tally.withLock { ($0.errors, $0.firstErrors) } }

    /// The demo merchant's key and order type, once the server wrote them.
    func credentials() throws -> DevelopmentCredentials {
        let file = dataDirectory.appendingPathComponent("data/dev-credentials.json")
        return try JSONDecoder().decode(DevelopmentCredentials.self, from: Data(contentsOf: file))
    }

    /// Resident memory in bytes, from `/proc/<pid>/status`.
    func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }

    /// Open file descriptors, from `/proc/<pid>/fd`, and how many of them are connections a client holds open to the
    /// server's port. Those come and go with the clients' concurrency (the soak's pool opens more while answers are
    /// slow and keeps them a minute), so a leak shows in the others; an accepted connection the server fails to close
    /// after its client left is no longer established, and counts among the others too.
    func openDescriptors() -> (all: Int, clientConnections: Int)? {
        let directory = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        let accepted = establishedSockets(localPort: port)
        let connections = names.count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                target.hasPrefix("socket:["), target.hasSuffix("]")
            else { return false }
            return accepted.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }
        return (names.count, connections)
    }

    /// The inodes of established TCP sockets whose local port is `localPort`, from the server's `/proc/<pid>/net/tcp`
    /// tables (columns: slot, local address, remote address, state, queues, timers, retransmits, uid, timeout, inode).
    private func establishedSockets(localPort: Int) -> Set<String> {
        var inodes = Set<String>()
        for table in ["tcp", "tcp6"] {
            // Not `String(contentsOfFile:)`: it stops at 4 KiB of a file whose size /proc gives as 0.
            guard let bytes = try? FileHandle(forReadingAtPath: "/proc/\(pid)/net/\(table)")?.readToEnd() else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                guard columns.count > 9, columns[3] == "01", let port = columns[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                    port == localPort
                else { continue }
                inodes.insert(String(columns[9]))
            }
        }
        return inodes
    }

    private var pid: Int32 { child.withLock { $0.process.processIdentifier } }

    /// Stops the server as an operator does (SIGTERM, a graceful shutdown) and waits for it; `false` when it was still
    /// running after `grace` seconds, and then killed.
    @discardableResult
    func stop(grace: Double = 30) -> Bool {
        child.withLock { child in
            guard child.process.isRunning else { return true }
            child.process.terminate()
            guard child.waitForExit(seconds: grace) else {
                kill(child.process.processIdentifier, SIGKILL)
                child.waitForExit()
                return false
            }
            return true
        }
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
