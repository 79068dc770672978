import Foundation
import OrderModel

/// The public Apple Pay vectors in ../shared/testdata/apple-pay (read in place, never copied into the repository).
enum Vectors {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/testdata/apple-pay").standardizedFileURL

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: directory.appendingPathComponent(name))) }

    static func text(_ name: String) throws -> String { String(decoding: try bytes(name), as: UTF8.self) }

    static func json(_ name: String) throws -> JSONValue { try JSONValue.parse(try bytes(name)) }

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// `value` with the string at `path` (dotted) replaced by `transform` of it.
    static func modifying(_ value: JSONValue, _ path: String, _ transform: (String) -> String) -> JSONValue {
        var current: JSONValue? = value
        for key in path.split(separator: ".") { current = current?[String(key)] }
        return value.setting(path, to: .string(transform(current!.stringValue!)))
    }

    /// Base64 text with one bit of byte `index` of the decoded bytes flipped.
    static func flippingByte(_ index: Int) -> (String) -> String {
        { text in
            var bytes = [UInt8](Data(base64Encoded: text)!)
            bytes[index] ^= 0x01
            return Data(bytes).base64EncodedString()
        }
    }
}
