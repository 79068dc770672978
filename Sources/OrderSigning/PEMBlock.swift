import Foundation

/// One `-----BEGIN X-----` … `-----END X-----` block, with RFC 1421 headers (used by legacy
/// OpenSSL encryption: `Proc-Type`, `DEK-Info`) kept so encrypted keys can be recognised.
struct PEMBlock: Sendable {
    var label: String
    var headers: [String: String]
    var der: [UInt8]
    /// 1-based position within the text it came from, for error messages.
    var index: Int

    /// All blocks in `text`, in order. Text outside blocks (comments, `Bag Attributes` lines) is ignored.
    static func parseAll(_ text: String, source: String) throws(SigningError) -> [PEMBlock] {
        var blocks: [PEMBlock] = []
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).makeIterator()
        while let line = lines.next() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard let label = Self.label(of: trimmed, marker: "BEGIN") else { continue }
            let index = blocks.count + 1
            var body: [Substring] = []
            var ended = false
            while let inner = lines.next() {
                let innerTrimmed = inner.trimmingCharacters(in: .whitespaces)
                if let endLabel = Self.label(of: innerTrimmed, marker: "END") {
                    guard endLabel == label else {
                        throw .malformedPEM(
                            source: source, block: index,
                            reason: "'BEGIN \(label)' is closed by 'END \(endLabel)'")
                    }
                    ended = true
                    break
                }
                if innerTrimmed.hasPrefix("-----BEGIN ") {
                    throw .malformedPEM(
                        source: source, block: index, reason: "'BEGIN \(label)' has no matching END line")
                }
                body.append(Substring(innerTrimmed))
            }
            guard ended else {
                throw .malformedPEM(source: source, block: index, reason: "'BEGIN \(label)' has no matching END line")
            }
            blocks.append(try Self.decodeBody(body, label: label, index: index, source: source))
        }
        return blocks
    }

    private static func label(of line: String, marker: String) -> String? {
        let prefix = "-----\(marker) "
        guard line.hasPrefix(prefix), line.hasSuffix("-----"), line.count > prefix.count + 5 else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(5))
    }

    private static func decodeBody(
        _ body: [Substring], label: String, index: Int, source: String
    ) throws(SigningError) -> PEMBlock {
        var headers: [String: String] = [:]
        var base64Lines = body[...]
        // RFC 1421 headers come first, separated from the base64 body by a blank line.
        if let first = body.first, first.contains(":") {
            while let line = base64Lines.first, !line.isEmpty {
                guard let colon = line.firstIndex(of: ":") else {
                    throw .malformedPEM(source: source, block: index, reason: "header line without ':' in '\(label)'")
                }
                let name = line[..<colon].trimmingCharacters(in: .whitespaces)
                headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                base64Lines = base64Lines.dropFirst()
            }
        }
        let base64 = base64Lines.joined()
        guard !base64.isEmpty else {
            throw .malformedPEM(source: source, block: index, reason: "'\(label)' has an empty body")
        }
        guard let data = Data(base64Encoded: base64) else {
            throw .malformedPEM(source: source, block: index, reason: "the body of '\(label)' is not valid base64")
        }
        return PEMBlock(label: label, headers: headers, der: Array(data), index: index)
    }

    /// PEM text for `der` with 64-column base64 lines.
    static func encode(_ der: some Collection<UInt8>, label: String) -> String {
        let base64 = Data(der).base64EncodedString()
        var lines = ["-----BEGIN \(label)-----"]
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}
