import Foundation

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
