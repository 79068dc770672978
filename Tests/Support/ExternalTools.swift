import Foundation

/// Runs python3, openssl and other tools as independent checks of what our libraries produce.
///
/// The one process runner of the test suites: stdin comes from a file and stdout and stderr go to files, so a tool that
/// writes more than a pipe holds cannot block, and its exit is told by ``ProcessExit``.
public enum ExternalTools {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// What a finished tool printed and how it exited.
    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: String
        /// stdout then stderr, as text: where a tool reports a verdict is not always documented.
        public var output: String { String(decoding: stdout, as: UTF8.self) + stderr }
    }

    /// Runs `executable` with `arguments` in `directory`, feeding `input` on stdin, and returns how it ended,
    /// whatever its exit status. A tool still running after `timeout` is killed and reported as a failure.
    public static func execute(
        _ executable: String, _ arguments: [String], input: [UInt8] = [], in directory: URL? = nil, environment: [String: String] = [:],
        timeout: Duration = .seconds(300)
    ) throws -> Outcome {
        let tool = try RunningTool(executable, arguments, input: input, in: directory, environment: environment)
        return try tool.outcome(exited: tool.exit.wait(timeout: timeout), timeout: timeout)
    }

    /// ``execute(_:_:input:in:environment:timeout:)`` for a tool that may run long: it waits without holding one of
    /// Swift's cooperative threads.
    public static func execute(
        _ executable: String, _ arguments: [String], input: [UInt8] = [], in directory: URL? = nil, environment: [String: String] = [:],
        timeout: Duration = .seconds(300)
    ) async throws -> Outcome {
        let tool = try RunningTool(executable, arguments, input: input, in: directory, environment: environment)
        return try tool.outcome(exited: await tool.exit.exit(timeout: timeout), timeout: timeout)
    }

    /// A started tool, its stdin, stdout and stderr in files of a scratch directory removed with it.
    private final class RunningTool {
        let executable: String
        let arguments: [String]
        let process = Process()
        let exit: ProcessExit
        let scratch: URL

        init(_ executable: String, _ arguments: [String], input: [UInt8], in directory: URL?, environment: [String: String]) throws {
            self.executable = executable
            self.arguments = arguments
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try Data(input).write(to: scratch.appendingPathComponent("stdin"))
            try Data().write(to: scratch.appendingPathComponent("stdout"))
            try Data().write(to: scratch.appendingPathComponent("stderr"))
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = directory }
            if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
            let handles = [
                try FileHandle(forReadingFrom: scratch.appendingPathComponent("stdin")),
                try FileHandle(forWritingTo: scratch.appendingPathComponent("stdout")),
                try FileHandle(forWritingTo: scratch.appendingPathComponent("stderr")),
            ]
            // The child has its own copies once it runs; ours are closed whatever happens (a Process keeps them otherwise).
            defer { for handle in handles { try? handle.close() } }
            process.standardInput = handles[0]
            process.standardOutput = handles[1]
            process.standardError = handles[2]
            exit = ProcessExit(process)
            try process.run()
        }

        deinit { try? FileManager.default.removeItem(at: scratch) }

        func outcome(exited: Bool, timeout: Duration) throws -> Outcome {
            guard exited else {
                kill(process.processIdentifier, SIGKILL)
                exit.wait(timeout: .seconds(10))
                throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) still ran after \(timeout); killed")
            }
            let output = (try? Data(contentsOf: scratch.appendingPathComponent("stdout"))) ?? Data()
            let errors = (try? String(contentsOf: scratch.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
            return Outcome(status: process.terminationStatus, stdout: [UInt8](output), stderr: errors)
        }
    }

    /// Runs `executable` like ``execute(_:_:input:in:environment:timeout:)``; returns stdout, throws on a non-zero exit.
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8] = [], in directory: URL? = nil) throws -> [UInt8] {
        try execute(executable, arguments, input: input, in: directory).succeeded(executable, arguments).stdout
    }

    /// ``run(_:_:input:in:)`` without holding one of Swift's cooperative threads while the tool runs.
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8] = [], in directory: URL? = nil) async throws -> [UInt8] {
        try await execute(executable, arguments, input: input, in: directory).succeeded(executable, arguments).stdout
    }

    /// Runs a Python script; the archive under test (if any) arrives on stdin.
    public static func python(_ script: String, input: [UInt8] = [], in directory: URL? = nil) throws -> [UInt8] {
        try run("/usr/bin/env", ["python3", "-c", script], input: input, in: directory)
    }

    /// ``python(_:input:in:)`` without holding one of Swift's cooperative threads while the script runs.
    public static func python(_ script: String, input: [UInt8] = [], in directory: URL? = nil) async throws -> [UInt8] {
        try await run("/usr/bin/env", ["python3", "-c", script], input: input, in: directory)
    }

    /// Runs `/usr/bin/openssl` in `directory` and returns how it ended, whatever its exit status.
    public static func openssl(_ arguments: [String], in directory: URL? = nil) throws -> Outcome {
        try execute(opensslPath, arguments, in: directory)
    }

    /// ``openssl(_:in:)`` without holding one of Swift's cooperative threads while it runs.
    public static func openssl(_ arguments: [String], in directory: URL? = nil) async throws -> Outcome {
        try await execute(opensslPath, arguments, in: directory)
    }

    /// Runs `/usr/bin/openssl` in `directory` and returns its stdout and stderr; throws on a non-zero exit.
    @discardableResult
    public static func requireOpenSSL(_ arguments: [String], in directory: URL? = nil) throws -> String {
        try openssl(arguments, in: directory).succeeded(opensslPath, arguments).output
    }

    /// ``requireOpenSSL(_:in:)`` without holding one of Swift's cooperative threads while it runs.
    @discardableResult
    public static func requireOpenSSL(_ arguments: [String], in directory: URL? = nil) async throws -> String {
        try await openssl(arguments, in: directory).succeeded(opensslPath, arguments).output
    }

    private static let opensslPath = "/usr/bin/openssl"

    /// Whether the openssl command-line tool is installed, for `.enabled(if:)`.
    public static let hasOpenSSL = FileManager.default.isExecutableFile(atPath: opensslPath)

    /// Whether `python3` on the PATH can import `module`, for `.enabled(if:)` on tests that need it.
    public static func pythonHasModule(_ module: String) -> Bool {
        (try? execute("/usr/bin/env", ["python3", "-c", "import \(module)"]).status) == 0
    }
}

extension ExternalTools.Outcome {
    fileprivate func succeeded(_ executable: String, _ arguments: [String]) throws -> Self {
        guard status == 0 else {
            throw ExternalTools.Failure(description: "\(executable) \(arguments.joined(separator: " ")) exited \(status): \(output)")
        }
        return self
    }
}
