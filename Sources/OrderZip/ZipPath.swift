/// The rules every entry name must satisfy, shared by writer and reader.
enum ZipPath {
    enum Violation {
        case empty
        case absolute
        case parentComponent
        case backslash
        case invalidComponent
    }

    /// The first rule `name` breaks, or nil for a safe relative path. A trailing `/` marks a directory entry.
    static func violation(in name: String) -> Violation? {
        if name.isEmpty { return .empty }
        let bytes = name.utf8
        if bytes.contains(UInt8(ascii: "\\")) { return .backslash }
        if bytes.first == UInt8(ascii: "/") { return .absolute }
        // A drive letter ("C:") makes a path absolute on Windows.
        if bytes.count >= 2, bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: ":") { return .absolute }
        var components = name.split(separator: "/", omittingEmptySubsequences: false)
        if name.hasSuffix("/") { components.removeLast() }
        if components.contains("..") { return .parentComponent }
        if components.contains(where: { $0.isEmpty || $0 == "." || $0.utf8.contains(0) }) { return .invalidComponent }
        return nil
    }
}
