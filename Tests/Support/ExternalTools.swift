import Foundation

/// Runs python3, openssl and other tools as independent checks of what our libraries produce.
public enum ExternalTools {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `executable` with `arguments`, feeding `input` on stdin; returns stdout, throws on a non-zero exit.
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputURL = scratch.appendingPathComponent("stdin")
        let errorURL = scratch.appendingPathComponent("stderr")
        try Data(input).write(to: inputURL)
        FileManager.default.createFile(atPath: errorURL.path, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdout = Pipe()
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errors = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            throw Failure(
                description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(errors)"
            )
        }
        return [UInt8](output)
    }

    /// Runs a Python script; the archive under test (if any) arrives on stdin.
    public static func python(_ script: String, input: [UInt8] = []) throws -> [UInt8] {
        try run("/usr/bin/env", ["python3", "-c", script], input: input)
    }
}
