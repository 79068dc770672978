import WireFormats

extension JSONValue {
    /// UTF-8 JSON text with object keys sorted, so equal trees always serialize to equal bytes.
    public func serialized(pretty: Bool = false) -> [UInt8] {
        WorkTally.count(.serialization)
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    /// The serialized text as a `String`.
    public func serializedString(pretty: Bool = false) -> String {
        String(decoding: serialized(pretty: pretty), as: UTF8.self)
    }

    private func write(to output: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let literal): output.append(contentsOf: literal.utf8)
        case .string(let value): JSONText.appendString(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.newline(&output, pretty: pretty, indent: indent + 1)
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if !elements.isEmpty { JSONValue.newline(&output, pretty: pretty, indent: indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.newline(&output, pretty: pretty, indent: indent + 1)
                JSONText.appendString(key, to: &output)
                output.append(contentsOf: pretty ? Array(" : ".utf8) : [UInt8(ascii: ":")])
                members[key]!.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if !members.isEmpty { JSONValue.newline(&output, pretty: pretty, indent: indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ output: inout [UInt8], pretty: Bool, indent: Int) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }
}
