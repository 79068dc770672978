/// One entry read from an archive, checked and decompressed.
public struct ZipFile: Sendable, Hashable {
    public let name: String
    public let method: ZipMethod
    public let data: [UInt8]

    /// A name ending in `/` is a directory entry; it carries no data.
    public var isDirectory: Bool { name.hasSuffix("/") }

    public init(name: String, method: ZipMethod, data: [UInt8]) {
        self.name = name
        self.method = method
        self.data = data
    }
}

/// What a lenient read found: the entries that passed every check, and every problem met on the way.
public struct ZipInspection: Sendable, Hashable {
    public var files: [ZipFile]
    public var problems: [ZipReadError]

    public init(files: [ZipFile], problems: [ZipReadError]) {
        self.files = files
        self.problems = problems
    }
}
