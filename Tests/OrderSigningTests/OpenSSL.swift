import Foundation

/// Runs the `openssl` command-line tool, the independent implementation these tests check against.
enum OpenSSL {
    struct Failure: Error, CustomStringConvertible {
        var arguments: [String]
        var status: Int32
        var output: String
        var description: String { "openssl \(arguments.joined(separator: " ")) exited \(status): \(output)" }
    }

    struct Result {
        var status: Int32
        var output: String
    }

    /// Runs openssl in `directory` and returns its exit status and combined output.
    static func run(_ arguments: [String], in directory: URL) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// Runs openssl and throws unless it succeeds.
    @discardableResult
    static func require(_ arguments: [String], in directory: URL) throws -> String {
        let result = try run(arguments, in: directory)
        guard result.status == 0 else {
            throw Failure(arguments: arguments, status: result.status, output: result.output)
        }
        return result.output
    }
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ordersigning-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func text(_ name: String) throws -> String { try String(contentsOf: file(name), encoding: .utf8) }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: file(name))) }

    func write(_ name: String, _ text: String) throws { try text.write(to: file(name), atomically: true, encoding: .utf8) }

    func write(_ name: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: file(name)) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
