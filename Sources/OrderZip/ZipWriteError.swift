/// Why an archive could not be written.
public enum ZipWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// zlib refused to compress; `status` is its return code.
    case compressionFailed(status: Int32)
    /// The entry name is empty, absolute, has `..`/empty components or a backslash, or is longer than 65,535 bytes.
    case invalidName(String)
    /// Two entries share a name.
    case duplicateName(String)
    /// An entry or the archive needs zip64, which this writer does not produce (4 GiB per entry, 65,535 entries).
    case tooLarge(String)

    /// What went wrong and how to fix it.
    public var description: String {
        switch self {
        case .compressionFailed(let status):
            "zlib failed to compress an entry (status \(status))"
        case .invalidName(let name):
            "entry name '\(name)' is not a safe relative path: use '/'-separated names without '..', leading '/' or '\\'"
        case .duplicateName(let name):
            "entry '\(name)' is added twice: give every file a unique path"
        case .tooLarge(let what):
            "\(what) exceeds the zip limits without zip64 (4 GiB per entry, 65,535 entries)"
        }
    }
}
