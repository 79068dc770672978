import Foundation
import TestSupport
import Testing

/// The real `ordertrack serve` process, started and killed like an operator (or the OOM killer) would.
package final class ServerProcess: @unchecked Sendable {
    package static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug/ordertrack")

    package let process = Process()
    package let port: Int
    private let exit: ProcessExit

    /// Starts the server and waits until it prints the port it listens on. Claims of a killed server expire
    /// after `leaseSeconds`, so that another instance on a shared database takes its jobs over. `extraArguments` go to
    /// `serve` as well.
    package init(dataDirectory: URL, database: String? = nil, apns: LocalAPNs, leaseSeconds: Int = 5, extraArguments: [String] = []) throws {
        process.executableURL = Self.binary
        process.arguments =
            [
                "serve", "--port", "0", "--data-dir", dataDirectory.path, "--public-url", "https://orders.example.test",
                "--apns-endpoint", apns.endpoint.absoluteString, "--apns-ca-file", apns.caFile, "--log-level", "error",
                "--push-lease-seconds", String(leaseSeconds), "--carrier-lease-seconds", String(leaseSeconds), "--dev",
            ] + (database.map { ["--database", $0] } ?? []) + extraArguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        exit = ProcessExit(process)
        try process.run()
        var text = ""
        let handle = output.fileHandleForReading
        while !text.contains("listening on") || !text.contains("; devices") {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { throw ServerProcessError(output: text) }
            text += String(decoding: chunk, as: UTF8.self)
        }
        // Keep reading: a server whose log lines fill an unread pipe blocks on its next write.
        handle.readabilityHandler = { _ = $0.availableData }
        let line = try #require(text.split(separator: "\n").first { $0.contains("listening on") })
        let address = try #require(line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") })
        port = try #require(Int(address.dropFirst("127.0.0.1:".count).prefix { $0.isNumber }))
    }

    package func kill() async {
        Foundation.kill(process.processIdentifier, SIGKILL)
        _ = await exit.exit()
    }

    package func stop() async {
        process.terminate()
        _ = await exit.exit()
    }
}

package struct ServerProcessError: Error, CustomStringConvertible {
    var output: String
    package var description: String { "ordertrack serve exited before listening; output:\n\(output)" }
}
