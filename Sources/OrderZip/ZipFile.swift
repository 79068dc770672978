/// One entry read from an archive, checked and decompressed.
public struct ZipFile: Sendable, Hashable {
    /// Path inside the archive, `/`-separated, already checked to be a safe relative path.
    public let name: String
    /// How the entry was stored in the archive.
    public let method: ZipMethod
    /// The uncompressed bytes, checked against the declared sizes and CRC-32.
    public let data: [UInt8]

    /// A name ending in `/` is a directory entry; it carries no data.
    public var isDirectory: Bool { name.hasSuffix("/") }

    /// A file with its name, storage method and uncompressed bytes.
    public init(name: String, method: ZipMethod, data: [UInt8]) {
        self.name = name
        self.method = method
        self.data = data
    }
}

/// What a lenient read found: the entries that passed every check, and every problem met on the way.
public struct ZipInspection: Sendable, Hashable {
    /// The entries that passed every check, in central directory order.
    public var files: [ZipFile]
    /// Every rule broken, in the order met; empty for a sound archive.
    public var problems: [ZipReadError]

    /// An inspection result.
    public init(files: [ZipFile], problems: [ZipReadError]) {
        self.files = files
        self.problems = problems
    }
}
